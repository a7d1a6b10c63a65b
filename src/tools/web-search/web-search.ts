import { z } from 'zod';
import { type Tool, ToolError } from '../../agent/tool.js';
import { toolSchema } from '../../agent/tool-schema.js';
import { revealHiddenCharacters } from '../../util/hidden-characters.js';
import { wrapUntrusted } from '../net/untrusted.js';
import type { WebConfig } from '../web-config.js';
import {
  keyHint,
  PROVIDER_BASE_URLS,
  PROVIDER_LABELS,
  type SearchResult,
  searchWith,
} from './search-providers.js';

const parameters = z
  .object({
    query: z.string().trim().min(1).max(400),
    count: z.number().int().min(1).max(20).optional(),
  })
  .strict();

const TITLE_CHARS = 150;
const SNIPPET_CHARS = 300;

/** One-line text with hidden characters made visible (see revealHiddenCharacters). */
function visible(value: string): string {
  return revealHiddenCharacters(value, { singleLine: true });
}

/**
 * Plain one-line text: tags stripped, common entities decoded, whitespace collapsed, capped, hidden characters
 * made visible (after the tag stripping, which would take `<U+202E>` for a tag).
 */
function clean(value: string, max: number): string {
  const plain = value
    .replace(/<[^>]*>/g, '')
    .replace(
      /&(amp|lt|gt|quot|#39|#x27|nbsp);/g,
      (_m, name: string) =>
        ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'", nbsp: ' ' })[name] ?? ' ',
    )
    .replace(/\s+/g, ' ')
    .trim();
  return visible(plain.length > max ? `${plain.slice(0, max - 1)}…` : plain);
}

/** Results as a compact numbered list: title, URL, snippet, each with hidden characters made visible. */
export function formatResults(results: SearchResult[]): string {
  return results
    .map((result, index) => {
      const lines = [
        `${index + 1}. ${clean(result.title, TITLE_CHARS) || '(no title)'}`,
        `   ${visible(result.url)}`,
      ];
      const snippet = clean(result.snippet, SNIPPET_CHARS);
      if (snippet) lines.push(`   ${snippet}`);
      return lines.join('\n');
    })
    .join('\n');
}

/** The provider's base URL: `web.search.base_url` when set, else the provider's public API. */
function baseUrlOf(search: WebConfig['search']): string | undefined {
  if (search.baseUrl) return search.baseUrl;
  if (!search.provider || search.provider === 'searxng') return undefined;
  return PROVIDER_BASE_URLS[search.provider];
}

/**
 * `web_search`: searches the web through the configured provider (Brave, Tavily, SearXNG or DuckDuckGo's HTML
 * page; `web.search.base_url` overrides where it is reached). Results are a numbered list wrapped as
 * untrusted data (`taint: 'untrusted'`). With no provider, or a keyed provider without its key, every call
 * returns an error naming the config key to set. Provider endpoints are owner-configured, so they are not
 * subject to the web_fetch address guard (SearXNG often runs on the LAN). Never throws for failures.
 */
export function createWebSearchTool(
  search: WebConfig['search'],
  limits: Pick<WebConfig['fetch'], 'timeoutMs' | 'userAgent'>,
): Tool {
  const baseUrl = baseUrlOf(search);
  const host = baseUrl ? new URL(baseUrl).hostname : undefined;

  function missingSetup(): string | undefined {
    const provider = search.provider;
    if (!provider) {
      return 'Web search is not configured. Set web.search.provider in config.yaml to brave, tavily, searxng or duckduckgo (duckduckgo needs no key; brave and tavily also need web.search.api_key; searxng needs web.search.base_url).';
    }
    if ((provider === 'brave' || provider === 'tavily') && !search.apiKey) {
      return `${PROVIDER_LABELS[provider]} needs an API key: set ${keyHint(provider)}.`;
    }
    if (!baseUrl)
      return `${PROVIDER_LABELS[provider]} needs web.search.base_url, the address of your instance.`;
    return undefined;
  }

  return {
    name: 'web_search',
    description: 'Search the web: a numbered list of results (title, URL, snippet); read one with web_fetch.',
    parameters: toolSchema(parameters),
    risk: 'moderate',
    core: true,
    assess() {
      return host ? { egress: { target: host }, target: host } : {};
    },
    async execute(raw, _ctx, signal) {
      try {
        const problem = missingSetup();
        if (problem) throw new ToolError(problem);
        const provider = search.provider!;
        const args = parameters.parse(raw);
        const results = await searchWith(
          provider,
          {
            query: args.query,
            count: args.count ?? search.maxResults,
            baseUrl: baseUrl!,
            ...(search.apiKey ? { apiKey: search.apiKey } : {}),
            userAgent: limits.userAgent,
            timeoutMs: limits.timeoutMs,
          },
          signal,
        );
        const shown = results.slice(0, args.count ?? search.maxResults);
        if (shown.length === 0) {
          return {
            content: `No results for "${args.query}" (${PROVIDER_LABELS[provider]}). Try other words.`,
          };
        }
        return {
          content: `Results for "${args.query}" (${PROVIDER_LABELS[provider]}):\n${wrapUntrusted(new URL(baseUrl!).origin, formatResults(shown))}`,
          taint: 'untrusted',
          details: {
            provider,
            query: args.query,
            results: shown.map((result) => ({
              title: visible(result.title),
              url: visible(result.url),
              snippet: visible(result.snippet),
            })),
          },
        };
      } catch (error) {
        if (signal.aborted) throw error;
        const message =
          error instanceof ToolError
            ? error.message
            : `web_search failed: ${(error as Error)?.message ?? String(error)}`;
        // A key must never reach the model, even inside an unexpected library message.
        const secret = search.apiKey;
        return { content: secret ? message.replaceAll(secret, '[key]') : message, isError: true };
      }
    },
  };
}
