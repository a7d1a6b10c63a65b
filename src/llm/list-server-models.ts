import { createDeadline } from '../util/create-deadline.js';
import { modelListIds } from './model-list-ids.js';

/** What `listServerModels` found: the model ids, or a sentence saying why there are none. */
export type ServerModels = { ok: true; models: string[] } | { ok: false; error: string };

export interface ListServerModelsOptions {
  /** The OpenAI-compatible base URL the owner gave, up to the version (`http://127.0.0.1:8080/v1`). */
  baseUrl: string;
  /** Sent as a bearer token when given; never part of a result or an error. */
  apiKey?: string;
  /** Default 3 s: the owner waits for the list while typing. */
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

/** A model list larger than this is not read (no server lists that many bytes of ids). */
const MAX_BODY_BYTES = 1024 * 1024;
const MAX_MODELS = 500;
/** A model id as servers name them; anything else in the list is skipped. */
const MODEL_ID = /^[^\s\p{Cc}]{1,200}$/u;

/** The base URL as an http(s) URL without credentials, or undefined. */
function httpBase(text: string): URL | undefined {
  if (!URL.canParse(text)) return undefined;
  const url = new URL(text);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username || url.password) return undefined;
  return url;
}

/**
 * Asks an OpenAI-compatible server which models it serves: `GET <baseUrl>/models` (`{data: [{id}]}`; an
 * Ollama-style `{models: [{name}]}` is read too). Only the URL given is asked — redirects are not followed —
 * with a short deadline and a capped body. Only http(s) URLs without credentials are asked at all. Never
 * rejects: every failure (refused URL, unreachable, timeout, HTTP error, not a model list, aborted) is
 * `{ ok: false, error }` with a sentence fit to show the owner.
 */
export async function listServerModels(
  options: ListServerModelsOptions,
  signal?: AbortSignal,
): Promise<ServerModels> {
  const base = httpBase(options.baseUrl.trim());
  if (!base) {
    return {
      ok: false,
      error: 'The base URL must be an http(s) URL without a user name, such as http://127.0.0.1:8080/v1.',
    };
  }
  const url = `${base.origin}${base.pathname.replace(/\/+$/, '')}/models`;
  const timeoutMs = options.timeoutMs ?? 3000;
  const deadline = createDeadline(timeoutMs, signal);
  try {
    const response = await (options.fetch ?? globalThis.fetch)(url, {
      signal: deadline.signal,
      redirect: 'manual',
      headers: {
        accept: 'application/json',
        ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
      },
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      return { ok: false, error: statusError(response.status, url) };
    }
    const text = await readCapped(response);
    if (text === undefined) return { ok: false, error: `${url} answered with more than a model list.` };
    const models = modelIds(text);
    if (!models) return { ok: false, error: `${url} did not answer with a model list.` };
    return { ok: true, models };
  } catch (error) {
    if (deadline.timedOut) return { ok: false, error: `${url} did not answer within ${timeoutMs / 1000} s.` };
    if (signal?.aborted) return { ok: false, error: 'Cancelled.' };
    const cause = (error as { cause?: { code?: unknown } }).cause?.code;
    return {
      ok: false,
      error: `Could not reach ${base.host}${typeof cause === 'string' ? ` (${cause})` : ''}: is the server running?`,
    };
  } finally {
    deadline.dispose();
  }
}

function statusError(status: number, url: string): string {
  if (status >= 300 && status < 400)
    return `${url} redirects elsewhere (HTTP ${status}); give the base URL the server itself uses.`;
  if (status === 401 || status === 403)
    return `The server wants an API key to list its models (HTTP ${status}); enter the key first.`;
  if (status === 404)
    return `No model list at ${url} (HTTP 404); the base URL usually ends with the API version, e.g. /v1.`;
  return `${url} answered HTTP ${status}.`;
}

/** The body as text, or undefined once it passes MAX_BODY_BYTES (the rest is not read). */
async function readCapped(response: Response): Promise<string | undefined> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Ids of `{data: [{id}]}` or `{models: [{name | model | id}]}`, each once, in the server's order. */
function modelIds(text: string): string[] | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const listed = modelListIds(body);
  if (!listed) return undefined;
  const ids = new Set<string>();
  for (const id of listed) {
    if (MODEL_ID.test(id)) ids.add(id);
    if (ids.size >= MAX_MODELS) break;
  }
  return [...ids];
}
