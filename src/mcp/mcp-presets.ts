/**
 * A catalogue of well-known MCP servers. None runs until the owner enables it (`wren mcp enable NAME` copies the
 * entry into mcp.json). Entries are mcp.json entries as written: secrets stay `${VAR}` placeholders to be set
 * in the environment or `WREN_HOME/.env`.
 */
export interface McpPreset {
  name: string;
  /** One line: what the server gives the assistant. */
  description: string;
  /** The mcp.json entry it adds (without `enabled`). */
  entry: Record<string, unknown>;
}

const npx = (pkg: string, ...args: string[]) => ({ command: 'npx', args: ['-y', pkg, ...args] });
const uvx = (pkg: string, ...args: string[]) => ({ command: 'uvx', args: [pkg, ...args] });
const withEnv = (entry: Record<string, unknown>, env: Record<string, string>) => ({ ...entry, env });
const remote = (url: string, headers?: Record<string, string>) => ({ url, ...(headers ? { headers } : {}) });

/** The catalogue, alphabetical by name. */
export const MCP_PRESETS: readonly McpPreset[] = [
  {
    name: 'airtable',
    description: 'Airtable bases, tables and records',
    entry: withEnv(npx('airtable-mcp-server'), { AIRTABLE_API_KEY: '${AIRTABLE_API_KEY}' }),
  },
  { name: 'arxiv', description: 'search and read arXiv papers', entry: uvx('arxiv-mcp-server') },
  {
    name: 'atlassian',
    description: 'Jira and Confluence (remote, OAuth)',
    entry: remote('https://mcp.atlassian.com/v1/sse'),
  },
  {
    name: 'aws-kb-retrieval',
    description: 'AWS Bedrock knowledge-base retrieval',
    entry: withEnv(npx('@modelcontextprotocol/server-aws-kb-retrieval'), {
      AWS_ACCESS_KEY_ID: '${AWS_ACCESS_KEY_ID}',
      AWS_SECRET_ACCESS_KEY: '${AWS_SECRET_ACCESS_KEY}',
      AWS_REGION: '${AWS_REGION:-us-east-1}',
    }),
  },
  {
    name: 'brave-search',
    description: 'web and local search with Brave',
    entry: withEnv(npx('@brave/brave-search-mcp-server'), { BRAVE_API_KEY: '${BRAVE_API_KEY}' }),
  },
  {
    name: 'chrome-devtools',
    description: 'drive and inspect a Chrome browser',
    entry: npx('chrome-devtools-mcp@latest'),
  },
  {
    name: 'cloudflare',
    description: 'Cloudflare Workers, KV, R2 and D1',
    entry: npx('@cloudflare/mcp-server-cloudflare', 'run', '${CLOUDFLARE_ACCOUNT_ID}'),
  },
  { name: 'context7', description: 'up-to-date library documentation', entry: npx('@upstash/context7-mcp') },
  {
    name: 'docker',
    description: 'manage Docker containers, images and volumes',
    entry: uvx('mcp-server-docker'),
  },
  {
    name: 'duckduckgo',
    description: 'web search with DuckDuckGo (no key)',
    entry: uvx('duckduckgo-mcp-server'),
  },
  {
    name: 'everart',
    description: 'image generation with EverArt',
    entry: withEnv(npx('@modelcontextprotocol/server-everart'), { EVERART_API_KEY: '${EVERART_API_KEY}' }),
  },
  {
    name: 'everything',
    description: 'the MCP reference test server (every feature)',
    entry: npx('@modelcontextprotocol/server-everything'),
  },
  {
    name: 'exa',
    description: 'web search with Exa',
    entry: withEnv(npx('exa-mcp-server'), { EXA_API_KEY: '${EXA_API_KEY}' }),
  },
  { name: 'fetch', description: 'fetch web pages as Markdown', entry: uvx('mcp-server-fetch') },
  {
    name: 'figma',
    description: 'read Figma designs',
    entry: npx('figma-developer-mcp', '--figma-api-key=${FIGMA_API_KEY}', '--stdio'),
  },
  {
    name: 'filesystem',
    description: 'read, write and search files in chosen folders',
    entry: npx('@modelcontextprotocol/server-filesystem', '${HOME}/Documents'),
  },
  {
    name: 'firecrawl',
    description: 'crawl and scrape websites',
    entry: withEnv(npx('firecrawl-mcp'), { FIRECRAWL_API_KEY: '${FIRECRAWL_API_KEY}' }),
  },
  {
    name: 'git',
    description: 'read and commit in a local Git repository',
    entry: uvx('mcp-server-git', '--repository', '${HOME}'),
  },
  {
    name: 'github',
    description: 'GitHub repositories, issues and pull requests',
    entry: withEnv(
      {
        command: 'docker',
        args: ['run', '-i', '--rm', '-e', 'GITHUB_PERSONAL_ACCESS_TOKEN', 'ghcr.io/github/github-mcp-server'],
      },
      { GITHUB_PERSONAL_ACCESS_TOKEN: '${GITHUB_TOKEN}' },
    ),
  },
  {
    name: 'gitlab',
    description: 'GitLab projects, issues and merge requests',
    entry: withEnv(npx('@modelcontextprotocol/server-gitlab'), {
      GITLAB_PERSONAL_ACCESS_TOKEN: '${GITLAB_TOKEN}',
      GITLAB_API_URL: '${GITLAB_API_URL:-https://gitlab.com/api/v4}',
    }),
  },
  {
    name: 'gmail',
    description: 'read, search and send Gmail',
    entry: npx('@gongrzhe/server-gmail-autoauth-mcp'),
  },
  {
    name: 'google-calendar',
    description: 'Google Calendar events',
    entry: withEnv(npx('@cocal/google-calendar-mcp'), {
      GOOGLE_OAUTH_CREDENTIALS: '${GOOGLE_OAUTH_CREDENTIALS}',
    }),
  },
  {
    name: 'google-drive',
    description: 'search and read Google Drive files',
    entry: npx('@modelcontextprotocol/server-gdrive'),
  },
  {
    name: 'google-maps',
    description: 'places, directions and geocoding',
    entry: withEnv(npx('@modelcontextprotocol/server-google-maps'), {
      GOOGLE_MAPS_API_KEY: '${GOOGLE_MAPS_API_KEY}',
    }),
  },
  {
    name: 'home-assistant',
    description: 'control Home Assistant devices',
    entry: remote('${HASS_URL}/mcp_server/sse', { Authorization: 'Bearer ${HASS_TOKEN}' }),
  },
  {
    name: 'hubspot',
    description: 'HubSpot CRM records',
    entry: withEnv(npx('@hubspot/mcp-server'), { PRIVATE_APP_ACCESS_TOKEN: '${HUBSPOT_TOKEN}' }),
  },
  {
    name: 'kubernetes',
    description: 'inspect and manage Kubernetes clusters',
    entry: npx('mcp-server-kubernetes'),
  },
  {
    name: 'linear',
    description: 'Linear issues and projects (remote, OAuth)',
    entry: remote('https://mcp.linear.app/sse'),
  },
  {
    name: 'markitdown',
    description: 'convert documents (PDF, Office) to Markdown',
    entry: uvx('markitdown-mcp'),
  },
  {
    name: 'memory',
    description: 'a knowledge-graph memory',
    entry: npx('@modelcontextprotocol/server-memory'),
  },
  {
    name: 'mongodb',
    description: 'query MongoDB databases',
    entry: withEnv(npx('mongodb-mcp-server'), { MDB_MCP_CONNECTION_STRING: '${MONGODB_URI}' }),
  },
  {
    name: 'notion',
    description: 'Notion pages and databases',
    entry: withEnv(npx('@notionhq/notion-mcp-server'), { NOTION_TOKEN: '${NOTION_TOKEN}' }),
  },
  {
    name: 'obsidian',
    description: 'read and search an Obsidian vault',
    entry: npx('mcp-obsidian', '${HOME}/Obsidian'),
  },
  {
    name: 'perplexity',
    description: 'answers with web citations from Perplexity',
    entry: withEnv(npx('server-perplexity-ask'), { PERPLEXITY_API_KEY: '${PERPLEXITY_API_KEY}' }),
  },
  {
    name: 'playwright',
    description: 'browse the web in a real browser',
    entry: npx('@playwright/mcp@latest'),
  },
  {
    name: 'postgres',
    description: 'read-only queries on PostgreSQL',
    entry: npx('@modelcontextprotocol/server-postgres', '${DATABASE_URL}'),
  },
  {
    name: 'puppeteer',
    description: 'browser automation with Puppeteer',
    entry: npx('@modelcontextprotocol/server-puppeteer'),
  },
  {
    name: 'qdrant',
    description: 'semantic memory in a Qdrant collection',
    entry: withEnv(uvx('mcp-server-qdrant'), {
      QDRANT_URL: '${QDRANT_URL:-http://127.0.0.1:6333}',
      COLLECTION_NAME: '${QDRANT_COLLECTION:-wren}',
    }),
  },
  {
    name: 'redis',
    description: 'read and write Redis keys',
    entry: npx('@modelcontextprotocol/server-redis', '${REDIS_URL:-redis://127.0.0.1:6379}'),
  },
  {
    name: 'sentry',
    description: 'Sentry issues and events',
    entry: uvx('mcp-server-sentry', '--auth-token', '${SENTRY_TOKEN}'),
  },
  {
    name: 'sequential-thinking',
    description: 'structured step-by-step reasoning',
    entry: npx('@modelcontextprotocol/server-sequential-thinking'),
  },
  {
    name: 'shopify-dev',
    description: 'Shopify developer documentation and APIs',
    entry: npx('@shopify/dev-mcp@latest'),
  },
  {
    name: 'slack',
    description: 'read and post Slack messages',
    entry: withEnv(npx('@modelcontextprotocol/server-slack'), {
      SLACK_BOT_TOKEN: '${SLACK_BOT_TOKEN}',
      SLACK_TEAM_ID: '${SLACK_TEAM_ID}',
    }),
  },
  {
    name: 'sqlite',
    description: 'query a SQLite database',
    entry: uvx('mcp-server-sqlite', '--db-path', '${HOME}/wren-mcp.sqlite'),
  },
  {
    name: 'stripe',
    description: 'Stripe payments, customers and invoices',
    entry: npx('@stripe/mcp', '--tools=all', '--api-key=${STRIPE_SECRET_KEY}'),
  },
  {
    name: 'supabase',
    description: 'Supabase projects and databases',
    entry: npx('@supabase/mcp-server-supabase@latest', '--access-token', '${SUPABASE_ACCESS_TOKEN}'),
  },
  {
    name: 'tavily',
    description: 'web search and extraction with Tavily',
    entry: withEnv(npx('tavily-mcp'), { TAVILY_API_KEY: '${TAVILY_API_KEY}' }),
  },
  { name: 'time', description: 'current time and time-zone conversion', entry: uvx('mcp-server-time') },
  {
    name: 'todoist',
    description: 'Todoist tasks and projects',
    entry: withEnv(npx('@abhiz123/todoist-mcp-server'), { TODOIST_API_TOKEN: '${TODOIST_API_TOKEN}' }),
  },
  {
    name: 'vercel',
    description: 'Vercel projects and deployments (remote, OAuth)',
    entry: remote('https://mcp.vercel.com'),
  },
  {
    name: 'youtube-transcript',
    description: 'transcripts of YouTube videos',
    entry: npx('@kimtaeyoon83/mcp-server-youtube-transcript'),
  },
  {
    name: 'zapier',
    description: 'thousands of app actions through Zapier',
    entry: remote('${ZAPIER_MCP_URL}'),
  },
];

/** The preset of that name, or undefined. */
export function findPreset(name: string): McpPreset | undefined {
  return MCP_PRESETS.find((preset) => preset.name === name);
}
