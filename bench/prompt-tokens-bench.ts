/**
 * Prompt tokens of "hi" in a fresh session with every feature on, counted as a provider bills it: cl100k over
 * the JSON of the request's `messages` plus the JSON of its `tools` (OpenAI wire format). Also the parts
 * (system prompt, each tool schema, the `use_tools` catalogue) and what sending every schema would cost.
 *
 * "Every feature on": a main model plus an embedding model (semantic memory), memory tidy, web search with a
 * provider key, weather with a key, exec on, proactive on (cron, reminders, goals, heartbeat), every chat
 * platform configured (their adapters are not started — no network — and the prompt does not depend on them),
 * and three real MCP servers from node_modules configured on demand (each adds a word to the catalogue).
 *   npx tsx bench/prompt-tokens-bench.ts
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { USE_TOOLS } from '../src/agent/tool-catalog.js';
import { createApp } from '../src/app/create-app.js';
import { estimateTokens } from '../src/llm/token-estimate.js';
import { startFakeLlmServer } from '../test/fakes/fake-llm-server.js';

export interface HelloTokens {
  /** cl100k tokens of JSON(messages) + JSON(tools): what the target counts. */
  json: number;
  /** The older estimate: system + user text + tool schema JSON + 4 per message. */
  tokens: number;
  system: number;
  tools: number;
  toolCount: number;
  /** JSON tokens of each tool schema sent, by name (`use_tools` is the catalogue). */
  perTool: Record<string, number>;
  catalogue: number;
  /** The older estimate if every registered schema were sent instead of the catalogue. */
  everySchema: number;
  allTools: number;
  mcpServers: number;
}

const bin = (pkg: string) => resolve(`node_modules/@modelcontextprotocol/${pkg}/dist/index.js`);

function everyFeatureConfig(baseUrl: string, dir: string): string {
  return `models:
  - name: main
    protocol: openai
    base_url: ${baseUrl}
    model: fake-model
  - name: embed
    protocol: openai
    base_url: ${baseUrl}
    model: fake-embedding
    tags: [embedding]
memory:
  tidy:
    every: "0 3 * * *"
web:
  search:
    provider: brave
    api_key: bench-brave-key
  weather:
    openweathermap_key: bench-weather-key
tools:
  extra_roots: [${JSON.stringify(join(dir, 'extra'))}]
proactive:
  enabled: true
  heartbeat_minutes: 30
channels:
  telegram:
    token: "123456:bench-token"
    allow_from: ["1"]
  email:
    address: me@example.com
    password: bench-password
    imap: { host: 127.0.0.1, port: 1 }
    smtp: { host: 127.0.0.1, port: 1 }
    allow_from: [me@example.com]
  slack:
    bot_token: xoxb-bench
    app_token: xapp-bench
    allow_from: [U0123]
  discord:
    token: bench-discord-token-0123456789
    allow_from: ["123456789012345678"]
  wecom:
    bot_id: bench
    secret: bench-secret
    allow_from: [owner]
  feishu:
    app_id: cli_0123456789abcdef
    app_secret: bench-secret
    allow_from: [ou_bench0123]
`;
}

function mcpServers(dir: string): Record<string, unknown> {
  return {
    everything: { command: process.execPath, args: [bin('server-everything')] },
    files: { command: process.execPath, args: [bin('server-filesystem'), dir] },
    memory: {
      command: process.execPath,
      args: [bin('server-memory')],
      env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
    },
  };
}

async function waitFor(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('MCP servers did not come up in time');
    await new Promise((done) => setTimeout(done, 50));
  }
}

/** Runs "hi" once against a home with every feature on; `root` is a temp folder the caller removes. */
export async function helloTokens(root: string): Promise<HelloTokens> {
  const dir = join(root, 'hello-every-feature');
  mkdirSync(join(dir, 'extra'), { recursive: true, mode: 0o700 });
  const llm = await startFakeLlmServer();
  writeFileSync(join(dir, 'config.yaml'), everyFeatureConfig(llm.baseUrls.openai, dir), { mode: 0o600 });
  const servers = mcpServers(dir);
  writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: servers }));
  const app = await createApp({ home: dir });
  try {
    const groups = Object.keys(servers).map((name) => `${name}__*`);
    await waitFor(() => groups.every((group) => app.registry.groupMembers(group).length > 0), 20_000);
    await app.bus.request({
      id: 'hi',
      channel: 'cli',
      senderId: 'owner',
      fromOwner: true,
      chatId: 'bench',
      text: 'hi',
    });
    const body = llm.lastRequest!.body as {
      messages: Array<{ role: string; content: string }>;
      tools?: Array<{ function: { name: string } }>;
    };
    const tools = body.tools ?? [];
    const text = (keep: (role: string) => boolean) =>
      body.messages
        .filter((message) => keep(message.role))
        .map((message) => message.content)
        .join('\n');
    const system = estimateTokens(text((role) => role === 'system'));
    const rest = estimateTokens(text((role) => role !== 'system'));
    const toolTokens = estimateTokens(JSON.stringify(tools));
    const perTool = Object.fromEntries(
      tools.map((tool) => [tool.function.name, estimateTokens(JSON.stringify(tool))]),
    );
    const overhead = 4 * body.messages.length;
    return {
      json: estimateTokens(JSON.stringify(body.messages)) + estimateTokens(JSON.stringify(tools)),
      tokens: system + rest + toolTokens + overhead,
      system,
      tools: toolTokens,
      toolCount: tools.length,
      perTool,
      catalogue: perTool[USE_TOOLS] ?? 0,
      everySchema: system + rest + estimateTokens(JSON.stringify(app.registry.definitions())) + overhead,
      allTools: app.registry.names().length,
      mcpServers: groups.length,
    };
  } finally {
    await app.close();
    await llm.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = mkdtempSync(join(tmpdir(), 'wren-prompt-bench-'));
  try {
    console.log(JSON.stringify(await helloTokens(root), null, 2));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
