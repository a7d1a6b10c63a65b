import { sleep as defaultSleep } from '../util/create-deadline.js';
import { isEmbeddingEndpoint } from './embedding-endpoint.js';
import type { EndpointConfig, Protocol } from './endpoint.js';
import {
  endpointSecrets,
  failureAction,
  type NetworkError,
  ProviderError,
  redactSecrets,
  toEndpointError,
} from './provider-error.js';
import { streamEndpoint as defaultStreamEndpoint, type StreamEndpoint } from './stream-endpoint.js';
import type { ChatModel, ModelEvent, ModelLimits, ModelRequest, ModelResult, ToolCall } from './types.js';

export interface RetryPolicy {
  /** Attempts per endpoint for 5xx, timeouts and connection errors (first try included). */
  attempts: number;
  /** Backoff before retry n (0-based) is `random() * min(maxDelayMs, baseDelayMs * 2^n)` (full jitter). */
  baseDelayMs: number;
  maxDelayMs: number;
}

export interface EndpointPoolOptions {
  endpoints: EndpointConfig[];
  /** Milliseconds since the epoch; injected in tests. */
  clock?: () => number;
  /** Uniform in [0, 1); drives backoff jitter. */
  random?: () => number;
  /** Must reject (or resolve early) when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** One call against one endpoint; defaults to the real wire adapters. */
  streamEndpoint?: StreamEndpoint;
  retry?: Partial<RetryPolicy>;
  /** Cool-down after a rate limit without `Retry-After`. Default 60 s. */
  defaultCooldownMs?: number;
}

/** One endpoint as `wren models` / `wren status` shows it (no secrets). */
export interface EndpointStatus {
  name: string;
  protocol: Protocol;
  model: string;
  tags: string[];
  priority: number;
  enabled: boolean;
  /** Epoch ms until which the endpoint is skipped after a rate limit; undefined when usable now. */
  coolingUntil: number | undefined;
}

/**
 * What this process saw of one endpoint's real calls (not tests): the last success and the last failure.
 * Kept in memory only; an endpoint nobody called yet has neither.
 */
export interface EndpointHealth {
  /** Epoch ms of the last call that ended without error. */
  lastOkAt?: number;
  /** The last failure as the pool reported it (api keys redacted), and when it happened (epoch ms). */
  lastError?: string;
  lastErrorAt?: number;
}

/** What one endpoint did with the call. */
type Outcome =
  | { kind: 'done'; result: ModelResult }
  | { kind: 'aborted' }
  | { kind: 'fatal'; error: ProviderError | NetworkError }
  | { kind: 'next'; error: ProviderError | NetworkError };

/** What has reached the caller so far in this call. */
interface Emitted {
  text: string;
  toolCalls: ToolCall[];
  any: boolean;
}

const DEFAULT_LIMITS: ModelLimits = { contextWindow: 8_192, maxOutputTokens: 1_024 };
const ZERO_USAGE = { inputTokens: 0, outputTokens: 0 };

/**
 * The `ChatModel` the rest of Wren uses: routes each call to one of the configured endpoints.
 *
 * - Candidates: enabled endpoints carrying `request.tag` (default `default`); all enabled ones when no
 *   endpoint carries the tag. Lowest `priority` first, round-robin among equal priorities. Embedding models
 *   (tagged `embedding`) are never candidates: they cannot chat.
 * - 429 / 529 / "overloaded": the endpoint cools down for `Retry-After` (default 60 s) and the next one is
 *   tried at once. 5xx, timeouts, connection errors: retried with exponential backoff and full jitter, then
 *   the next one. Other 4xx: no retry, the stream ends with stopReason `error` and an actionable message.
 * - Retries and fail-over happen only before anything was emitted; a failure after the first delta ends the
 *   stream with stopReason `error` (the partial text is kept in the result).
 * - Never throws for expected failures: every stream ends with exactly one `done`. Aborts end it with
 *   `aborted` promptly, also during backoff sleeps. Error messages never contain api keys.
 */
export class EndpointPool implements ChatModel {
  #endpoints: EndpointConfig[] = [];
  readonly #cooldowns = new Map<string, number>();
  readonly #health = new Map<string, EndpointHealth>();
  readonly #rotation = new Map<string, number>();
  readonly #clock: () => number;
  readonly #random: () => number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #streamEndpoint: StreamEndpoint;
  readonly #retry: RetryPolicy;
  readonly #defaultCooldownMs: number;

  constructor(options: EndpointPoolOptions) {
    this.#clock = options.clock ?? Date.now;
    this.#random = options.random ?? Math.random;
    this.#sleep = options.sleep ?? defaultSleep;
    this.#streamEndpoint = options.streamEndpoint ?? defaultStreamEndpoint;
    this.#retry = { attempts: 3, baseDelayMs: 500, maxDelayMs: 8_000, ...options.retry };
    this.#defaultCooldownMs = options.defaultCooldownMs ?? 60_000;
    this.update(options.endpoints);
  }

  /** Replaces the endpoint list (config hot reload). Cool-downs survive for endpoints whose name survives. */
  update(endpoints: EndpointConfig[]): void {
    this.#endpoints = [...endpoints];
    const names = new Set(endpoints.map((endpoint) => endpoint.name));
    for (const name of this.#cooldowns.keys()) if (!names.has(name)) this.#cooldowns.delete(name);
    for (const name of this.#health.keys()) if (!names.has(name)) this.#health.delete(name);
  }

  /** The last success and failure of each endpoint that was called, by name (copies; no keys). */
  health(): Record<string, EndpointHealth> {
    return Object.fromEntries([...this.#health].map(([name, health]) => [name, { ...health }]));
  }

  #noteOk(name: string): void {
    this.#health.set(name, { ...this.#health.get(name), lastOkAt: this.#clock() });
  }

  #noteError(endpoint: EndpointConfig, message: string): void {
    const lastError = redactSecrets(message, endpointSecrets(endpoint));
    this.#health.set(endpoint.name, {
      ...this.#health.get(endpoint.name),
      lastError,
      lastErrorAt: this.#clock(),
    });
  }

  /** Every configured endpoint (enabled or not) with its cool-down; safe to show (no keys, no URLs). */
  status(): EndpointStatus[] {
    return this.#endpoints.map((endpoint) => ({
      name: endpoint.name,
      protocol: endpoint.protocol,
      model: endpoint.model,
      tags: [...endpoint.tags],
      priority: endpoint.priority,
      enabled: endpoint.enabled,
      coolingUntil: this.#coolingUntil(endpoint.name),
    }));
  }

  /** Limits of the first candidate for `tag` (lowest priority, config order); a small default when none. */
  limits(tag = 'default'): ModelLimits {
    const first = this.#candidates(tag)[0];
    if (!first) return { ...DEFAULT_LIMITS };
    return { contextWindow: first.contextWindow, maxOutputTokens: first.maxOutputTokens };
  }

  /** Streams one model call; see the class comment for routing, retries and the never-throw contract. */
  async *stream(request: ModelRequest, signal?: AbortSignal): AsyncGenerator<ModelEvent, void, undefined> {
    const tag = request.tag ?? 'default';
    const candidates = this.#rotate(this.#candidates(tag), tag);
    const emitted: Emitted = { text: '', toolCalls: [], any: false };
    if (candidates.length === 0) {
      yield this.#errorDone(emitted, undefined, this.#noEndpointMessage());
      return;
    }
    let lastError: ProviderError | NetworkError | undefined;
    let current: string | undefined;
    for (const endpoint of candidates) {
      if (signal?.aborted) break;
      if (this.#coolingUntil(endpoint.name) !== undefined) continue;
      current = endpoint.name;
      const outcome = yield* this.#tryEndpoint(endpoint, request, emitted, signal);
      if (outcome.kind === 'done') {
        yield { type: 'done', result: { ...outcome.result, endpoint: endpoint.name } };
        return;
      }
      if (outcome.kind === 'aborted') break;
      if (outcome.kind === 'fatal') {
        yield this.#errorDone(emitted, endpoint.name, outcome.error.message);
        return;
      }
      lastError = outcome.error;
    }
    if (signal?.aborted) {
      const result: ModelResult = {
        ...this.#partial(emitted),
        stopReason: 'aborted',
        usage: { ...ZERO_USAGE },
      };
      if (current) result.endpoint = current;
      yield { type: 'done', result };
      return;
    }
    yield this.#errorDone(emitted, lastError?.endpoint, this.#exhaustedMessage(candidates, tag, lastError));
  }

  /** One endpoint, with retries for transient failures. Yields deltas; returns what happened. */
  async *#tryEndpoint(
    endpoint: EndpointConfig,
    request: ModelRequest,
    emitted: Emitted,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<ModelEvent, Outcome, undefined> {
    for (let attempt = 0; ; attempt++) {
      const iterator = this.#streamEndpoint(endpoint, request, signal)[Symbol.asyncIterator]();
      try {
        for (;;) {
          const next = await nextOrAbort(iterator, signal);
          if (next.done) break;
          const event = next.value;
          if (event.type === 'done') {
            if (event.result.stopReason === 'error')
              this.#noteError(
                endpoint,
                event.result.errorMessage ?? 'The endpoint ended the reply with an error.',
              );
            else if (event.result.stopReason !== 'aborted') this.#noteOk(endpoint.name);
            return { kind: 'done', result: event.result };
          }
          emitted.any = true;
          if (event.type === 'text-delta') emitted.text += event.text;
          else emitted.toolCalls.push(event.call);
          yield event;
        }
        if (signal?.aborted) return { kind: 'aborted' };
        // A substitute stream that ended without `done`: treat what arrived as a normal stop.
        return {
          kind: 'done',
          result: { ...this.#partial(emitted), stopReason: 'stop', usage: { ...ZERO_USAGE } },
        };
      } catch (thrown) {
        if (signal?.aborted) return { kind: 'aborted' };
        const error = toEndpointError(thrown, endpoint, this.#clock());
        this.#noteError(endpoint, error.message);
        if (emitted.any) return { kind: 'fatal', error };
        const action = failureAction(error);
        if (action === 'cooldown') {
          const retryAfterMs = error instanceof ProviderError ? error.retryDelayMs(this.#clock()) : undefined;
          this.#cooldowns.set(endpoint.name, this.#clock() + (retryAfterMs ?? this.#defaultCooldownMs));
          return { kind: 'next', error };
        }
        if (action === 'fatal') return { kind: 'fatal', error };
        if (attempt + 1 >= this.#retry.attempts) return { kind: 'next', error };
        const cap = Math.min(this.#retry.maxDelayMs, this.#retry.baseDelayMs * 2 ** attempt);
        try {
          await this.#sleep(Math.floor(this.#random() * cap), signal);
        } catch {
          if (signal?.aborted) return { kind: 'aborted' };
        }
        if (signal?.aborted) return { kind: 'aborted' };
      } finally {
        iterator.return?.().catch(() => {});
      }
    }
  }

  #candidates(tag: string): EndpointConfig[] {
    const enabled = this.#endpoints.filter((endpoint) => endpoint.enabled && !isEmbeddingEndpoint(endpoint));
    const tagged = enabled.filter((endpoint) => endpoint.tags.includes(tag));
    const pool = tagged.length > 0 ? tagged : enabled;
    return pool
      .map((endpoint, index) => ({ endpoint, index }))
      .sort((a, b) => a.endpoint.priority - b.endpoint.priority || a.index - b.index)
      .map(({ endpoint }) => endpoint);
  }

  /** Rotates each priority group by a per-(tag, priority) counter that advances on every call. */
  #rotate(sorted: EndpointConfig[], tag: string): EndpointConfig[] {
    const out: EndpointConfig[] = [];
    for (let start = 0; start < sorted.length; ) {
      const priority = sorted[start]!.priority;
      let end = start;
      while (end < sorted.length && sorted[end]!.priority === priority) end++;
      const group = sorted.slice(start, end);
      const key = `${tag}\u0000${priority}`;
      const turn = this.#rotation.get(key) ?? 0;
      this.#rotation.set(key, turn + 1);
      const offset = turn % group.length;
      out.push(...group.slice(offset), ...group.slice(0, offset));
      start = end;
    }
    return out;
  }

  #coolingUntil(name: string): number | undefined {
    const until = this.#cooldowns.get(name);
    return until !== undefined && until > this.#clock() ? until : undefined;
  }

  #exhaustedMessage(
    candidates: EndpointConfig[],
    tag: string,
    lastError?: ProviderError | NetworkError,
  ): string {
    const cooling = candidates
      .map((endpoint) => ({ name: endpoint.name, until: this.#coolingUntil(endpoint.name) }))
      .filter((entry): entry is { name: string; until: number } => entry.until !== undefined)
      .sort((a, b) => a.until - b.until);
    const first = cooling[0];
    if (first && cooling.length === candidates.length) {
      const seconds = Math.max(1, Math.ceil((first.until - this.#clock()) / 1000));
      const count =
        candidates.length === 1 ? 'The only model endpoint' : `All ${candidates.length} model endpoints`;
      return (
        `${count} for tag "${tag}" ${candidates.length === 1 ? 'is' : 'are'} cooling down after rate limits. ` +
        `The first, "${first.name}", is available again at ${formatClock(first.until)} (in ${seconds} s).`
      );
    }
    const prefix =
      candidates.length > 1 ? `No model endpoint for tag "${tag}" could answer. Last error: ` : '';
    return prefix + (lastError?.message ?? 'unknown error.');
  }

  #noEndpointMessage(): string {
    const chat = this.#endpoints.filter((endpoint) => !isEmbeddingEndpoint(endpoint));
    if (chat.length > 0)
      return 'Every model endpoint is disabled. Enable one under `models:` in config.yaml.';
    return this.#endpoints.length === 0
      ? 'No model endpoint is configured. Add one under `models:` in config.yaml (run `wren onboard`, or `wren models` for the presets).'
      : 'Only an embedding model (tag `embedding`) is configured; it cannot chat. Add a chat model under `models:` in config.yaml.';
  }

  #partial(emitted: Emitted): Pick<ModelResult, 'text' | 'toolCalls'> {
    return { text: emitted.text, toolCalls: [...emitted.toolCalls] };
  }

  #errorDone(emitted: Emitted, endpoint: string | undefined, message: string): ModelEvent {
    const secrets = this.#endpoints.flatMap(endpointSecrets);
    const result: ModelResult = {
      ...this.#partial(emitted),
      stopReason: 'error',
      usage: { ...ZERO_USAGE },
      errorMessage: redactSecrets(message, secrets),
    };
    if (endpoint) result.endpoint = endpoint;
    return { type: 'done', result };
  }
}

/**
 * `iterator.next()`, but rejects as soon as `signal` aborts, so a stream that ignores its signal cannot
 * delay an abort. The abandoned `next()` settles on its own; the caller's `finally` returns the iterator.
 */
function nextOrAbort<T>(iterator: AsyncIterator<T>, signal?: AbortSignal): Promise<IteratorResult<T>> {
  if (!signal) return iterator.next();
  if (signal.aborted) return Promise.reject(signal.reason);
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  const next = iterator.next();
  next.catch(() => {});
  return Promise.race([next, aborted]).finally(() => signal.removeEventListener('abort', onAbort!));
}

/** Local wall-clock time `HH:MM:SS` for messages. */
function formatClock(epochMs: number): string {
  const date = new Date(epochMs);
  return [date.getHours(), date.getMinutes(), date.getSeconds()]
    .map((n) => String(n).padStart(2, '0'))
    .join(':');
}
