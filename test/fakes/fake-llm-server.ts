/**
 * A scripted fake LLM server on 127.0.0.1 speaking the real wire formats, for tests and benchmarks.
 *
 * ```ts
 * const llm = await startFakeLlmServer();
 * llm.script({ text: 'Hello there' }, { toolCalls: [{ name: 'read_file', arguments: { path: 'a.md' } }] });
 * const endpoint = llm.endpoint('anthropic');           // an EndpointConfig pointing here
 * // …drive the code under test…
 * expect(llm.requests[0]?.lastUserText).toBe('hi');
 * llm.setHandler((req) => ({ text: `echo: ${req.lastUserText}` })); // answers once the script is used up
 * await llm.close();
 * ```
 *
 * Routes (matched by path suffix, so any prefix such as `/v1` or `/v1beta/openai` works):
 * - `POST …/chat/completions` — OpenAI (JSON, or SSE with `stream: true`; usage chunk with `stream_options.include_usage`)
 * - `POST …/messages` — Anthropic (JSON, or SSE message_start … message_stop with tool_use / input_json_delta)
 * - `POST …/models/{model}:generateContent` and `:streamGenerateContent` — Gemini (SSE with `?alt=sse`, else a
 *   JSON array; requests Gemini would refuse get its 400, see fake-gemini-checks.ts)
 * - `GET /v1/models`, `/v1beta/openai/models`, `/models` (OpenAI list), `GET /v1beta/models` (Gemini list) and
 *   `GET /api/tags` (Ollama), for probing.
 * Only model calls are recorded in `requests`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { EndpointConfig } from '../../src/llm/endpoint.js';
import { geminiRequestProblem } from './fake-gemini-checks.js';
import { geminiKeyRefusal } from './fake-gemini-wire.js';
import { describeRequest, presentedKey, type RecordedRequest } from './fake-llm-request.js';
import {
  type FakeProtocol,
  type FakeStopReason,
  type FakeToolCall,
  type FakeUsage,
  renderError,
  renderJson,
  renderStep,
  renderStream,
  renderStreamError,
} from './fake-llm-wire.js';

export type { RecordedRequest } from './fake-llm-request.js';
export type { FakeProtocol, FakeStopReason, FakeToolCall, FakeUsage } from './fake-llm-wire.js';

/** One scripted answer. Everything is optional; `{}` answers with empty text. */
export interface FakeStep {
  text?: string;
  /** Exact stream chunks (joined for JSON answers); overrides the automatic splitting of `text`. */
  chunks?: string[];
  toolCalls?: FakeToolCall[];
  /** Default: input ≈ request JSON length / 4, output ≈ answer length / 4. */
  usage?: FakeUsage;
  /** Default: `tool_calls` when there are tool calls, else `stop`. Mapped to each protocol's vocabulary. */
  stopReason?: FakeStopReason;
  /** The finish reason in the protocol's own words (`content_filter`, `refusal`, `SAFETY` …), sent as is. */
  finishReason?: string;
  /** Gemini only: block the prompt (`promptFeedback.blockReason`, e.g. `SAFETY`); no candidate is sent. */
  blockReason?: string;
  /** An HTTP status ≥ 400 answers with a protocol-shaped error body instead. */
  status?: number;
  /** `Retry-After` header value (seconds or an HTTP date). */
  retryAfter?: string;
  /** Gemini only: a `google.rpc.RetryInfo` detail in the error body (`7s`, `0.5s`); Gemini sends no header. */
  retryDelay?: string;
  /** After this many content frames of a 200 stream, an error event in the protocol's shape ends it. */
  streamError?: { afterChunks: number; status: number; message?: string };
  /** Message inside the protocol-shaped error body. */
  errorMessage?: string;
  /** A raw JSON error body, sent as is (overrides `errorMessage`). */
  errorBody?: unknown;
  /** Extra response headers. */
  headers?: Record<string, string>;
  /** Wait before sending the status line. */
  delayMs?: number;
  /** Wait between content frames (text or tool-argument deltas); the preamble and first delta go at once. */
  chunkDelayMs?: number;
  /** Never answer; the connection stays open until the client gives up or the server closes. */
  hang?: boolean;
  /** Destroy the connection after this many content frames (a mid-stream network failure). */
  dropAfterChunks?: number;
  /** Consume this step only for requests of this protocol and/or model; others skip past it. */
  match?: { protocol?: FakeProtocol; model?: string };
}

export type FakeHandler = (request: RecordedRequest) => FakeStep | Promise<FakeStep>;

export interface FakeLlmServerOptions {
  /** When set, calls presenting another key get 401 — and, like some real servers, the message echoes it. */
  apiKey?: string;
  /** Model ids listed by `GET /v1/models` and `GET /api/tags`. Default `['fake-model']`. */
  models?: string[];
  /** Answers when the script is empty. Default: text `ok`. */
  handler?: FakeHandler;
}

export interface FakeLlmServer {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  url: string;
  port: number;
  /** Base URLs to configure per protocol: `<url>/v1`, `<url>/v1`, `<url>/v1beta`. */
  baseUrls: Record<FakeProtocol, string>;
  /** Every model call received, oldest first. Clear with `requests.length = 0` or `reset()`. */
  requests: RecordedRequest[];
  /** The most recent model call. */
  readonly lastRequest: RecordedRequest | undefined;
  /** Queues answers, consumed in order (respecting each step's `match`). */
  script(...steps: FakeStep[]): void;
  /** Sets the answer for calls when no scripted step applies; no argument restores the default (`ok`). */
  setHandler(handler?: FakeHandler): void;
  /** Scripted steps not yet consumed. */
  pending(): number;
  /** Clears the script, the recorded requests and the handler. */
  reset(): void;
  /** An `EndpointConfig` pointing at this server for `protocol`; override any field. */
  endpoint(protocol: FakeProtocol, overrides?: Partial<EndpointConfig>): EndpointConfig;
  /** Stops listening and drops open connections (hanging answers included). */
  close(): Promise<void>;
}

const DEFAULT_HANDLER: FakeHandler = () => ({ text: 'ok' });

/** Mutable state shared by the request handler and the returned controls. */
interface ServerState {
  queue: FakeStep[];
  requests: RecordedRequest[];
  models: string[];
  options: FakeLlmServerOptions;
  handler: FakeHandler;
  served: number;
}

/** Starts a fake LLM server on 127.0.0.1 with a random free port. */
export async function startFakeLlmServer(options: FakeLlmServerOptions = {}): Promise<FakeLlmServer> {
  const state: ServerState = {
    queue: [],
    requests: [],
    models: options.models ?? ['fake-model'],
    options,
    handler: options.handler ?? DEFAULT_HANDLER,
    served: 0,
  };
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    handleRequest(state, req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: `fake server bug: ${String(error)}` } });
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  const baseUrls: Record<FakeProtocol, string> = {
    openai: `${url}/v1`,
    anthropic: `${url}/v1`,
    gemini: `${url}/v1beta`,
  };
  return {
    url,
    port,
    baseUrls,
    requests: state.requests,
    get lastRequest() {
      return state.requests.at(-1);
    },
    script: (...steps) => void state.queue.push(...steps),
    setHandler: (next) => {
      state.handler = next ?? DEFAULT_HANDLER;
    },
    pending: () => state.queue.length,
    reset: () => {
      state.queue.length = 0;
      state.requests.length = 0;
      state.handler = options.handler ?? DEFAULT_HANDLER;
    },
    endpoint: (protocol, overrides) => ({
      name: `fake-${protocol}`,
      protocol,
      baseUrl: baseUrls[protocol],
      apiKey: options.apiKey ?? 'fake-key',
      model: state.models[0] ?? 'fake-model',
      tags: ['default'],
      priority: 0,
      contextWindow: 32_000,
      maxOutputTokens: 1_024,
      enabled: true,
      timeoutMs: 10_000,
      vision: true,
      ...overrides,
    }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function handleRequest(state: ServerState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const raw = await readBody(req);
  if (req.method === 'GET') return listModels(url, res, state.models);
  const route = routeOf(url.pathname);
  if (req.method !== 'POST' || !route) {
    return sendJson(res, 404, {
      error: { message: `fake LLM server: no route for ${req.method} ${url.pathname}` },
    });
  }
  let body: unknown;
  try {
    body = raw ? JSON.parse(raw) : undefined;
  } catch {
    return sendJson(
      res,
      400,
      renderError(route.protocol, { status: 400, message: 'Request body is not valid JSON.' }),
    );
  }
  const headers = flatHeaders(req);
  const recorded: RecordedRequest = {
    protocol: route.protocol,
    method: req.method,
    path: url.pathname + url.search,
    headers,
    body,
    stream: route.protocol === 'gemini' ? route.stream : (body as { stream?: unknown })?.stream === true,
    apiKey: presentedKey(headers, url),
    ...describeRequest(route.protocol, body, route.model),
  };
  state.requests.push(recorded);
  const expectedKey = state.options.apiKey;
  if (expectedKey !== undefined && recorded.apiKey !== expectedKey) {
    if (route.protocol === 'gemini') {
      const refusal = geminiKeyRefusal(recorded.apiKey);
      return sendJson(res, refusal.status, refusal.body);
    }
    const message = `Incorrect API key provided: ${recorded.apiKey ?? '(none)'}.`;
    return sendJson(res, 401, renderError(route.protocol, { status: 401, message }));
  }
  const problem = route.protocol === 'gemini' ? geminiRequestProblem(body, recorded.model) : undefined;
  if (problem) return sendJson(res, 400, renderError('gemini', { status: 400, message: problem }));
  const step = await takeStep(state, recorded);
  state.served++;
  await answer(res, recorded, step, state.served, raw.length);
}

/** The first queued step whose `match` fits, else the handler's answer. */
async function takeStep(state: ServerState, request: RecordedRequest): Promise<FakeStep> {
  const index = state.queue.findIndex(
    (step) =>
      (!step.match?.protocol || step.match.protocol === request.protocol) &&
      (!step.match?.model || step.match.model === request.model),
  );
  if (index >= 0) return state.queue.splice(index, 1)[0]!;
  return state.handler(request);
}

type Route = { protocol: FakeProtocol; stream: boolean; model?: string };

function routeOf(pathname: string): Route | undefined {
  if (pathname.endsWith('/chat/completions')) return { protocol: 'openai', stream: false };
  if (pathname.endsWith('/messages')) return { protocol: 'anthropic', stream: false };
  const gemini = /\/models\/(.+):(generateContent|streamGenerateContent)$/.exec(pathname);
  if (gemini) {
    return {
      protocol: 'gemini',
      stream: gemini[2] === 'streamGenerateContent',
      model: decodeURIComponent(gemini[1]!),
    };
  }
  return undefined;
}

async function answer(
  res: ServerResponse,
  request: RecordedRequest,
  step: FakeStep,
  serial: number,
  requestLength: number,
): Promise<void> {
  if (step.hang) return; // Left open on purpose; close() or the client ends it.
  if (step.delayMs) await pause(step.delayMs, res);
  if (res.destroyed) return;
  const headers: Record<string, string> = { ...step.headers };
  if (step.retryAfter !== undefined) headers['retry-after'] = step.retryAfter;
  if (step.status !== undefined && step.status >= 400) {
    const error = { status: step.status, message: step.errorMessage ?? `Fake error ${step.status}` };
    const body = renderError(request.protocol, { ...error, retryDelay: step.retryDelay });
    return sendJson(res, step.status, step.errorBody ?? body, headers);
  }
  const rendered = renderStep({
    protocol: request.protocol,
    model: request.model,
    step,
    serial,
    requestLength,
  });
  if (!request.stream)
    return sendJson(res, step.status ?? 200, renderJson(request.protocol, rendered), headers);
  const includeUsage = request.protocol !== 'openai' || request.body?.stream_options?.include_usage === true;
  const alt = new URL(request.path, 'http://127.0.0.1').searchParams.get('alt');
  const frames = renderStream(request.protocol, rendered, {
    includeUsage,
    geminiFraming: alt === 'sse' ? 'sse' : 'json-array',
  });
  const contentType =
    request.protocol === 'gemini' && alt !== 'sse' ? 'application/json' : 'text/event-stream';
  res.writeHead(step.status ?? 200, {
    'content-type': contentType,
    'cache-control': 'no-cache',
    ...headers,
  });
  let contentSent = 0;
  for (const frame of frames) {
    if (frame.content && contentSent > 0 && step.chunkDelayMs) await pause(step.chunkDelayMs, res);
    if (res.destroyed) return;
    if (frame.content && step.dropAfterChunks !== undefined && contentSent >= step.dropAfterChunks) {
      // End the socket without the final chunk: the data sent so far arrives, then the body breaks off.
      res.socket?.end();
      return;
    }
    if (frame.content && step.streamError && contentSent >= step.streamError.afterChunks) {
      const { status, message = `Fake error ${status}` } = step.streamError;
      res.end(renderStreamError(request.protocol, status, message).data);
      return;
    }
    res.write(frame.data);
    if (frame.content) contentSent++;
  }
  res.end();
}

function listModels(url: URL, res: ServerResponse, models: string[]): void {
  const path = url.pathname.replace(/\/+$/, '');
  if (path === '/api/tags') {
    sendJson(res, 200, { models: models.map((name) => ({ name, model: name, size: 1, details: {} })) });
  } else if (path === '/v1beta/models') {
    sendJson(res, 200, { models: models.map((name) => ({ name: `models/${name}`, displayName: name })) });
  } else if (/^(\/v1|\/v1beta\/openai)?\/models$/.test(path)) {
    const data = models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' }));
    sendJson(res, 200, { object: 'list', data });
  } else {
    sendJson(res, 404, { error: { message: `fake LLM server: no route for GET ${path}` } });
  }
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** Waits `ms`, or less if the response closes meanwhile (client abort, server close). */
function pause(ms: number, res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      res.off('close', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    res.on('close', done);
  });
}
