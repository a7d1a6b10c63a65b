import { type SafeResponse, safeFetch } from '../net/safe-fetch.js';
import { FetchError } from '../net/target-url.js';
import type { SearchProvider } from '../web-config.js';

/** One search hit as the model sees it. */
export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

/** What a provider call needs: where, with which key, and the HTTP limits. */
export interface ProviderRequest {
  query: string;
  count: number;
  baseUrl: string;
  apiKey?: string;
  userAgent: string;
  timeoutMs: number;
}

/** The public base URL of each provider (SearXNG has none: it is always self-hosted). */
export const PROVIDER_BASE_URLS: Record<Exclude<SearchProvider, 'searxng'>, string> = {
  brave: 'https://api.search.brave.com',
  tavily: 'https://api.tavily.com',
  duckduckgo: 'https://html.duckduckgo.com',
};

/** Provider names as shown to the model. */
export const PROVIDER_LABELS: Record<SearchProvider, string> = {
  brave: 'Brave Search',
  tavily: 'Tavily',
  searxng: 'SearXNG',
  duckduckgo: 'DuckDuckGo',
};

/** Where a provider's key is set, for messages (never the key itself). */
export function keyHint(provider: SearchProvider): string {
  return `web.search.api_key in config.yaml (e.g. api_key: \${${provider.toUpperCase()}_API_KEY} with the key in ~/.wren/.env)`;
}

async function call(
  provider: SearchProvider,
  url: string,
  request: ProviderRequest,
  init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string },
  signal?: AbortSignal,
): Promise<SafeResponse> {
  const response = await safeFetch(
    url,
    {
      ...init,
      headers: { 'user-agent': request.userAgent, ...init.headers },
      maxBytes: 2 * 1024 * 1024,
      timeoutMs: request.timeoutMs,
      connectTimeoutMs: Math.min(request.timeoutMs, 10_000),
      maxRedirects: 0,
    },
    signal,
  );
  const label = PROVIDER_LABELS[provider];
  if (response.status === 401 || response.status === 403) {
    if (provider === 'searxng') {
      throw new FetchError(
        `${label} refused the request (HTTP ${response.status}); enable JSON output: add "json" to search.formats in its settings.yml.`,
      );
    }
    throw new FetchError(
      `${label} rejected the API key (HTTP ${response.status}); check ${keyHint(provider)}.`,
    );
  }
  if (response.status === 429)
    throw new FetchError(`${label} rate limit reached (HTTP 429); try again later.`);
  if (provider === 'duckduckgo' && response.status === 202) {
    throw new FetchError(
      `${label} answered with a bot check instead of results; try again later, or configure another provider in web.search.provider.`,
    );
  }
  if (response.status >= 300) {
    throw new FetchError(`${label} answered HTTP ${response.status}; try again later.`);
  }
  return response;
}

function json(provider: SearchProvider, response: SafeResponse): unknown {
  try {
    return JSON.parse(response.body.toString('utf8'));
  } catch {
    throw new FetchError(
      `${PROVIDER_LABELS[provider]} sent a response that is not JSON; check web.search.base_url.`,
    );
  }
}

type Row = Record<string, unknown>;
const rows = (value: unknown): Row[] =>
  Array.isArray(value) ? value.filter((row): row is Row => typeof row === 'object' && row !== null) : [];
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function toResults(list: Row[], snippetKey: string): SearchResult[] {
  return list
    .map((row) => ({ title: text(row.title), url: text(row.url), snippet: text(row[snippetKey]) }))
    .filter((row) => row.url !== '');
}

async function brave(request: ProviderRequest, signal?: AbortSignal): Promise<SearchResult[]> {
  const url = new URL('/res/v1/web/search', request.baseUrl);
  url.search = new URLSearchParams({ q: request.query, count: String(request.count) }).toString();
  const response = await call(
    'brave',
    url.href,
    request,
    { headers: { accept: 'application/json', 'x-subscription-token': request.apiKey ?? '' } },
    signal,
  );
  const body = json('brave', response) as { web?: { results?: unknown } };
  return toResults(rows(body.web?.results), 'description');
}

async function tavily(request: ProviderRequest, signal?: AbortSignal): Promise<SearchResult[]> {
  const response = await call(
    'tavily',
    new URL('/search', request.baseUrl).href,
    request,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${request.apiKey ?? ''}` },
      body: JSON.stringify({ query: request.query, max_results: request.count, search_depth: 'basic' }),
    },
    signal,
  );
  const body = json('tavily', response) as { results?: unknown };
  return toResults(rows(body.results), 'content');
}

async function searxng(request: ProviderRequest, signal?: AbortSignal): Promise<SearchResult[]> {
  const url = new URL(`${request.baseUrl.replace(/\/+$/, '')}/search`);
  url.search = new URLSearchParams({ q: request.query, format: 'json' }).toString();
  const response = await call(
    'searxng',
    url.href,
    request,
    { headers: { accept: 'application/json' } },
    signal,
  );
  const body = json('searxng', response) as { results?: unknown };
  return toResults(rows(body.results), 'content');
}

/** The target of a DuckDuckGo result link (`//duckduckgo.com/l/?uddg=<encoded>` or a direct URL). */
function unwrapDuckLink(href: string, base: string): string {
  try {
    const url = new URL(href, base);
    return url.searchParams.get('uddg') ?? url.href;
  } catch {
    return '';
  }
}

async function duckduckgo(request: ProviderRequest, signal?: AbortSignal): Promise<SearchResult[]> {
  const url = new URL('/html/', request.baseUrl);
  url.search = new URLSearchParams({ q: request.query }).toString();
  const response = await call('duckduckgo', url.href, request, { headers: { accept: 'text/html' } }, signal);
  const { parseHTML } = await import('linkedom');
  const { document } = parseHTML(response.body.toString('utf8'));
  const results: SearchResult[] = [];
  for (const result of document.querySelectorAll('.result')) {
    if (result.classList.contains('result--ad')) continue;
    const link = result.querySelector('a.result__a');
    const target = unwrapDuckLink(link?.getAttribute('href') ?? '', url.href);
    if (!link || !/^https?:/.test(target)) continue;
    results.push({
      title: link.textContent ?? '',
      url: target,
      snippet: result.querySelector('.result__snippet')?.textContent ?? '',
    });
  }
  return results;
}

/** Runs one search on `provider`. @throws FetchError with a message naming what to fix. */
export function searchWith(
  provider: SearchProvider,
  request: ProviderRequest,
  signal?: AbortSignal,
): Promise<SearchResult[]> {
  const run = { brave, tavily, searxng, duckduckgo }[provider];
  return run(request, signal);
}
