import { z } from 'zod';
import { type Tool, ToolError, type ToolResult } from '../../agent/tool.js';
import { toolSchema } from '../../agent/tool-schema.js';
import { resolveVault, takeVaultOpener, vaultReferences } from '../../vault/vault-references.js';
import { AddressGuard, type Resolve } from '../net/address-guard.js';
import { AllowList } from '../net/allow-list.js';
import { type SafeResponse, safeFetch } from '../net/safe-fetch.js';
import { displayUrl, parseTargetUrl } from '../net/target-url.js';
import { wrapUntrusted } from '../net/untrusted.js';
import type { WebConfig } from '../web-config.js';
import { formatBytes, isBinaryType, type RenderedPage, renderResponse } from './render-response.js';

const parameters = z
  .object({
    url: z.string().min(1),
    offset: z.number().int().min(0).optional(),
    headers: z.record(z.string(), z.string()).optional().describe('Headers; values may hold {{vault:NAME}}'),
  })
  .strict();

/** What `createWebFetchTool` needs besides the config; tests inject DNS and the clock. */
export interface WebFetchDeps {
  resolve?: Resolve;
  /** Milliseconds since the epoch (page cache expiry); defaults to Date.now. */
  now?: () => number;
}

interface CachedPage {
  page: RenderedPage;
  response: Pick<SafeResponse, 'url' | 'status' | 'truncated' | 'contentType' | 'redirects'> & {
    bytes: number;
  };
  at: number;
}

const CACHE_ENTRIES = 4;
const CACHE_TTL_MS = 10 * 60_000;
/** Characters of an error page (HTTP 4xx/5xx) shown to the model. */
const ERROR_PAGE_CHARS = 2000;

/** Where a page of `text` starting at `offset` ends: at `max` characters, backed off to a line break if near. */
function pageEnd(text: string, offset: number, max: number): number {
  const end = Math.min(text.length, offset + max);
  if (end === text.length) return end;
  const lineBreak = text.lastIndexOf('\n', end);
  return lineBreak > offset + max * 0.9 ? lineBreak + 1 : end;
}

function hostOf(args: Record<string, unknown>): string | undefined {
  try {
    return typeof args.url === 'string' ? parseTargetUrl(args.url).url.hostname : undefined;
  } catch {
    return undefined;
  }
}

/** Headers a call may not set (the connection's own). */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'accept-encoding',
]);

function checkedHeaders(headers: Record<string, string>): Record<string, string> {
  for (const name of Object.keys(headers))
    if (RESERVED_HEADERS.has(name.toLowerCase()) || !/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name))
      throw new ToolError(`The header ${name.slice(0, 80)} cannot be set by a call.`);
  return headers;
}

/**
 * `web_fetch`: one web page as readable Markdown (HTML via Readability + turndown; JSON and text as they are;
 * binary described), paged by `offset` in `maxChars` pieces. Every hop goes through the address guard (only
 * public addresses unless allow-listed, checked at connect time), downloads stop at `maxBytes`. Results carry
 * `taint: 'untrusted'` and wrap the content in `<untrusted>`. `execute` never throws for a failed fetch: it
 * returns an error result the model can act on (only the caller's abort propagates).
 */
export function createWebFetchTool(config: WebConfig['fetch'], deps: WebFetchDeps = {}): Tool {
  const guard = new AddressGuard(AllowList.parse(config.allow));
  const now = deps.now ?? Date.now;
  const cache = new Map<string, CachedPage>();

  /** `extra` (the call's own headers): never cached, and with a vault secret in them no redirect is followed. */
  async function load(
    url: string,
    offset: number,
    signal: AbortSignal,
    extra?: { headers: Record<string, string>; secret: boolean },
  ): Promise<CachedPage> {
    const cached = extra ? undefined : cache.get(url);
    if (offset > 0 && cached && now() - cached.at < CACHE_TTL_MS) return cached;
    const response = await safeFetch(
      url,
      {
        headers: {
          'user-agent': config.userAgent,
          accept: 'text/html,application/xhtml+xml,application/json;q=0.9,text/plain;q=0.8,*/*;q=0.5',
          ...extra?.headers,
        },
        maxBytes: config.maxBytes,
        timeoutMs: config.timeoutMs,
        connectTimeoutMs: config.connectTimeoutMs,
        // A redirect would carry the secret to a host the gate never checked.
        maxRedirects: extra?.secret ? 0 : config.maxRedirects,
        guard,
        ...(deps.resolve ? { resolve: deps.resolve } : {}),
        wantBody: (type) => !isBinaryType(type),
      },
      signal,
    );
    const { url: final, status, truncated, contentType, redirects } = response;
    const entry = {
      page: await renderResponse(response),
      response: { url: final, status, truncated, contentType, redirects, bytes: response.body.length },
      at: now(),
    };
    cache.delete(url);
    if (!extra && entry.page.text.length > config.maxChars) cache.set(url, entry);
    while (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
    return entry;
  }

  function present(requested: string, entry: CachedPage, offset: number): ToolResult {
    const { page, response } = entry;
    const failed = response.status >= 400;
    const max = failed ? ERROR_PAGE_CHARS : config.maxChars;
    if (offset > 0 && offset >= page.text.length) {
      throw new ToolError(
        `offset ${offset} is past the end: the page has ${page.text.length} characters (offsets 0-${Math.max(0, page.text.length - 1)}).`,
      );
    }
    const end = pageEnd(page.text, offset, max);
    const header = [
      page.title ? `Title: ${page.title}` : undefined,
      response.url.href !== requested ? `URL: ${response.url.href}` : undefined,
    ].filter(Boolean);
    const body = [...header, ...(header.length ? [''] : []), page.text.slice(offset, end)].join('\n');
    const notes: string[] = [];
    if (failed)
      notes.unshift(
        `HTTP ${response.status} from ${response.url.host}: the page could not be fetched as asked.`,
      );
    if (response.truncated) {
      notes.push(
        `[The download stopped at ${formatBytes(config.maxBytes)} (web.fetch.max_bytes); the rest of the page was not fetched.]`,
      );
    }
    if (!failed && (offset > 0 || end < page.text.length)) {
      const more =
        end < page.text.length ? `; call web_fetch again with offset ${end} for more` : '; end of page';
      notes.push(`[Characters ${offset}-${end} of ${page.text.length}${more}.]`);
    }
    const wrapped = wrapUntrusted(response.url.href, body);
    const content = failed
      ? `${notes[0]}\n${wrapped}${notes
          .slice(1)
          .map((n) => `\n${n}`)
          .join('')}`
      : [wrapped, ...notes].join('\n');
    return {
      content,
      ...(failed ? { isError: true } : {}),
      taint: 'untrusted',
      details: {
        url: requested,
        finalUrl: response.url.href,
        redirects: response.redirects.map((url) => displayUrl(url)),
        status: response.status,
        contentType: response.contentType,
        kind: page.kind,
        bytes: response.bytes,
        truncated: response.truncated,
        chars: page.text.length,
        offset,
        end,
      },
    };
  }

  return {
    name: 'web_fetch',
    description:
      'Fetch an http(s) page as Markdown (JSON and text as they are). Long pages come in pieces: pass the offset given at the end.',
    parameters: toolSchema(parameters),
    risk: 'moderate',
    core: true,
    vaultTarget: 'hosts',
    assess(args) {
      const host = hostOf(args);
      return host ? { egress: { target: host }, target: host } : {};
    },
    async execute(raw, _ctx, signal) {
      const opener = takeVaultOpener(raw);
      try {
        const args = parameters.parse(raw);
        const offset = args.offset ?? 0;
        if (!args.headers && vaultReferences(args.url).length === 0)
          return present(args.url, await load(args.url, offset, signal), offset);
        // Secrets are opened only now, after the gate decided on the host it saw.
        // In the URL the value goes encoded as one component (a query value or a path segment).
        const url = resolveVault(args.url, opener && ((name: string) => encodeURIComponent(opener(name))));
        if (hostOf({ url }) !== hostOf(args))
          throw new ToolError('With the secret in it the URL names another host; it was not fetched.');
        const headers = checkedHeaders(resolveVault(args.headers ?? {}, opener));
        const secret = vaultReferences(args).length > 0;
        return present(args.url, await load(url, offset, signal, { headers, secret }), offset);
      } catch (error) {
        if (signal.aborted) throw error;
        const message =
          error instanceof ToolError
            ? error.message
            : `web_fetch failed: ${(error as Error)?.message ?? String(error)}`;
        return { content: message, isError: true };
      }
    },
  };
}
