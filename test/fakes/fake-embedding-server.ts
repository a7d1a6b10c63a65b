/**
 * A deterministic fake embedding endpoint on 127.0.0.1 speaking OpenAI's `POST /v1/embeddings`:
 * `{model, input: string | string[]}` in, `{object: 'list', data: [{object: 'embedding', embedding, index}],
 * model, usage: {prompt_tokens, total_tokens}}` out; errors as `{error: {message, type, code}}`.
 *
 * ```ts
 * const embeddings = await startFakeEmbeddingServer();
 * const endpoint = embeddings.endpoint();          // an EndpointConfig tagged `embedding` pointing here
 * embeddings.fail({ status: 503 });                // every request fails until `fail()` with no argument
 * expect(embeddings.requests.map((r) => r.input.length)).toEqual([64, 6]);
 * ```
 *
 * Vectors come from a small hand-made concept table: each concept is one dimension, and a word starting with
 * one of its stems adds to it, so a paraphrase ("what instrument does my kid play") lands near the fact
 * ("daughter Mia studies violin at the conservatory") although they share no word. Other words (not stop
 * words) add a little to one of 8 further dimensions picked by a hash of the word, so unrelated texts are far
 * apart rather than all equal. Any other path answers 404 and is recorded in `strayRequests`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { EndpointConfig } from '../../src/llm/endpoint.js';

/** Concept → word stems. Order fixes the dimensions. */
export const CONCEPTS: Readonly<Record<string, readonly string[]>> = {
  child: ['kid', 'child', 'daughter', 'son', 'toddler'],
  music: ['violin', 'instrument', 'piano', 'conservator', 'play', 'cello', 'music'],
  teeth: ['dentist', 'tooth', 'teeth', 'molar'],
  food: ['pizza', 'pasta', 'eat', 'dinner', 'lunch', 'restaurant'],
  travel: ['flight', 'fly', 'trip', 'airport', 'travel', 'holiday'],
  pet: ['dog', 'cat', 'pet', 'puppy', 'vet'],
};

const NOISE_DIMENSIONS = 8;
export const DIMENSIONS = Object.keys(CONCEPTS).length + NOISE_DIMENSIONS;

const STOP_WORDS = new Set(
  'a an the is are was were be do does did my your our their his her its of at in on to for and or what which who how when where with about i you we they it me us that this'.split(
    ' ',
  ),
);

/** The fake's vector for `text` (exported so tests can reason about distances). */
export function conceptVector(text: string): number[] {
  const vector: number[] = Array.from({ length: DIMENSIONS }, () => 0);
  const stems = Object.values(CONCEPTS);
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    if (STOP_WORDS.has(word)) continue;
    const concept = stems.findIndex((list) => list.some((stem) => word.startsWith(stem)));
    if (concept >= 0) vector[concept]! += 1;
    else vector[stems.length + (hashWord(word) % NOISE_DIMENSIONS)]! += 0.2;
  }
  // An empty or stop-word-only text still gets a direction (vector search rejects zero vectors).
  if (!vector.some((value) => value !== 0)) vector[DIMENSIONS - 1] = 0.01;
  return vector;
}

function hashWord(word: string): number {
  let hash = 0;
  for (const char of word) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return hash;
}

/** One `/embeddings` call as received. */
export interface EmbeddingRequest {
  model: string;
  input: string[];
  /** The Bearer token presented, if any. */
  apiKey?: string;
}

export interface FakeEmbeddingServerOptions {
  /** When set, a request presenting another key gets 401 — and, like some real servers, the message echoes it. */
  apiKey?: string;
  /** Model id `endpoint()` names. Default `fake-embed`. */
  model?: string;
}

export interface FakeFailure {
  status: number;
  /** `Retry-After` header (seconds). */
  retryAfter?: string;
  /** Fail only this many requests, then answer again. Default: until `fail()` is called without a failure. */
  times?: number;
}

export interface FakeEmbeddingServer {
  /** `http://127.0.0.1:<port>/v1`. */
  baseUrl: string;
  /** Every `/embeddings` call, answered or failed, oldest first. */
  requests: EmbeddingRequest[];
  /** Requests to any other path (a chat call would land here). */
  strayRequests: string[];
  /** Fail `/embeddings` calls with an OpenAI-shaped error; no argument answers normally again. */
  fail(failure?: FakeFailure): void;
  /** An `EndpointConfig` tagged `embedding` pointing here; override any field. */
  endpoint(overrides?: Partial<EndpointConfig>): EndpointConfig;
  close(): Promise<void>;
}

/** Starts the fake on 127.0.0.1 with a random free port. */
export async function startFakeEmbeddingServer(
  options: FakeEmbeddingServerOptions = {},
): Promise<FakeEmbeddingServer> {
  const requests: EmbeddingRequest[] = [];
  const strayRequests: string[] = [];
  let failure: FakeFailure | undefined;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    if (req.method !== 'POST' || !req.url?.endsWith('/embeddings')) {
      strayRequests.push(`${req.method} ${req.url}`);
      return sendJson(res, 404, error(`no route ${req.method} ${req.url}`, 'invalid_request_error'));
    }
    const auth = req.headers.authorization ?? '';
    const apiKey = auth.startsWith('Bearer ') ? auth.slice('Bearer '.length) : undefined;
    const parsed = JSON.parse(body || '{}') as { model?: string; input?: string | string[] };
    const input = typeof parsed.input === 'string' ? [parsed.input] : (parsed.input ?? []);
    requests.push({ model: parsed.model ?? '', input, ...(apiKey ? { apiKey } : {}) });
    if (options.apiKey !== undefined && apiKey !== options.apiKey)
      return sendJson(
        res,
        401,
        error(`Incorrect API key provided: ${apiKey ?? '(none)'}.`, 'invalid_api_key'),
      );
    if (failure) {
      const { status, retryAfter } = failure;
      if (failure.times !== undefined && --failure.times <= 0) failure = undefined;
      return sendJson(res, status, error(`fake failure ${status}`, 'server_error'), {
        ...(retryAfter ? { 'retry-after': retryAfter } : {}),
      });
    }
    if (!Array.isArray(input) || input.some((text) => typeof text !== 'string') || input.length === 0)
      return sendJson(
        res,
        400,
        error("'input' must be a non-empty string or array of strings", 'invalid_request_error'),
      );
    const tokens = input.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
    return sendJson(res, 200, {
      object: 'list',
      data: input.map((text, index) => ({ object: 'embedding', embedding: conceptVector(text), index })),
      model: parsed.model ?? '',
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  };
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    handle(req, res).catch((thrown: unknown) =>
      sendJson(res, 500, error(`fake bug: ${String(thrown)}`, 'server_error')),
    );
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return {
    baseUrl,
    requests,
    strayRequests,
    fail: (next) => {
      failure = next ? { ...next } : undefined;
    },
    endpoint: (overrides) => ({
      name: 'embed',
      protocol: 'openai',
      baseUrl,
      apiKey: options.apiKey ?? 'fake-embed-key',
      model: options.model ?? 'fake-embed',
      tags: ['embedding'],
      priority: 0,
      contextWindow: 8_192,
      maxOutputTokens: 1_024,
      enabled: true,
      timeoutMs: 10_000,
      vision: false,
      ...overrides,
    }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function error(message: string, type: string) {
  return { error: { message, type, code: type } };
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      text += chunk;
    });
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}
