import { statSync } from 'node:fs';
import { type EmbedTexts, embedTexts, MAX_TEXTS_PER_REQUEST } from '../llm/embed-texts.js';
import type { EndpointConfig } from '../llm/endpoint.js';
import { ProviderError } from '../llm/provider-error.js';
import type { EmbeddingStore } from '../store/ports.js';
import { contentHash, embeddingText, historyText } from './embedding-text.js';
import { parseHistoryEntries } from './history-file.js';
import { readSnapshot } from './markdown-file.js';

export interface BackgroundEmbedderOptions {
  repository: EmbeddingStore;
  /** The embedding endpoint in force, or undefined: then a pass does nothing. */
  endpoint: () => EndpointConfig | undefined;
  /** Absolute path of HISTORY.md (its entries are embedded too). */
  historyFile: () => string;
  embed?: EmbedTexts;
  clock?: () => number;
  /** Backoff after a failed request: base, doubling per failure up to max. Default 30 s … 30 min. */
  retry?: { baseMs: number; maxMs: number };
  /** Tokens the provider counted for one request (for the usage table). */
  onUsage?: (endpoint: string, tokens: number) => void;
  /** A request failed; the next attempt is at `retryAt` (epoch ms). The message holds no api key. */
  onFailure?: (error: Error, retryAt: number) => void;
  /** Requests succeed again after failures. */
  onRecovery?: () => void;
}

/** What `wren status` and the app's status show of the embedder. */
export interface EmbedderStatus {
  model?: string;
  /** Requests sent since start. */
  requests: number;
  /** Consecutive failed passes; 0 when fine. */
  failures: number;
  lastError?: string;
  /** Epoch ms before which no request is sent (backoff). */
  retryAt?: number;
}

/** One text to embed under its hash. */
interface Work {
  hash: string;
  text: string;
}

/** Messages hashed per step of a pass. */
const LINK_BATCH = 500;
/** New messages a pass keeps in memory to embed; more than this and it scans the database instead. */
const FRESH_CAP = 2_000;

/**
 * Embeds, in the background, every searchable message and HISTORY.md entry that has no vector of the
 * current embedding model: new messages are hashed first (plain SQL), then texts without a vector go to the
 * endpoint in requests of at most 64, and a text already embedded under its hash is never sent again.
 *
 * Never on a turn's path: `poke` only schedules. A failed request ends the pass; the next one waits out a
 * backoff (doubling, and never shorter than a `Retry-After`), and keyword search is untouched meanwhile.
 * One pass runs at a time; `close` aborts it. Needs sqlite-vec loaded into the repository's connection.
 */
export class BackgroundEmbedder {
  readonly #options: BackgroundEmbedderOptions;
  readonly #embed: EmbedTexts;
  readonly #clock: () => number;
  readonly #retry: { baseMs: number; maxMs: number };
  #requests = 0;
  #failures = 0;
  #lastError: string | undefined;
  #retryAt = 0;
  /** The endpoint identity of the last pass: a change (model, URL, key) ends any backoff. */
  #endpointKey: string | undefined;
  /** A full scan for texts without vectors is still needed (at start, after a failure or a model change). */
  #backlog = true;
  /** HISTORY.md as last embedded (mtime and size); undefined: look again. */
  #historySeen: string | undefined;
  #running: Promise<void> | undefined;
  #controller = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #interval: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: BackgroundEmbedderOptions) {
    this.#options = options;
    this.#embed = options.embed ?? embedTexts;
    this.#clock = options.clock ?? Date.now;
    this.#retry = options.retry ?? { baseMs: 30_000, maxMs: 30 * 60_000 };
  }

  /** Checks for work every `intervalMs` (unref'd timers: they never keep the process alive). */
  start(intervalMs = 30_000): void {
    if (this.#closed || this.#interval) return;
    this.#interval = setInterval(() => void this.runIfDue(), intervalMs);
    this.#interval.unref();
    this.poke(1_000);
  }

  /** Runs a pass after `delayMs` (new messages were stored); repeated pokes meanwhile collapse into one. */
  poke(delayMs = 2_000): void {
    if (this.#closed || this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.runIfDue();
    }, delayMs);
    this.#timer.unref();
  }

  /** A pass, unless one is running, the backoff has not passed, or there is no endpoint. Never rejects. */
  runIfDue(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#running ??= this.#pass().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /** Whether a query may be embedded now: an endpoint is configured and not in backoff. */
  available(): boolean {
    return this.#options.endpoint() !== undefined && this.#failures === 0;
  }

  status(): EmbedderStatus {
    const model = this.#options.endpoint()?.model;
    return {
      ...(model ? { model } : {}),
      requests: this.#requests,
      failures: this.#failures,
      ...(this.#lastError ? { lastError: this.#lastError } : {}),
      ...(this.#failures > 0 ? { retryAt: this.#retryAt } : {}),
    };
  }

  /** Stops the timers and aborts a running pass (what it saved stays saved). Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    clearInterval(this.#interval);
    this.#controller.abort();
    await this.#running;
  }

  async #pass(): Promise<void> {
    const endpoint = this.#options.endpoint();
    if (!endpoint) return;
    const key = JSON.stringify([
      endpoint.baseUrl,
      endpoint.model,
      endpoint.apiKey ?? '',
      endpoint.headers ?? {},
    ]);
    if (key !== this.#endpointKey) {
      this.#endpointKey = key;
      this.#failures = 0;
      this.#retryAt = 0;
      this.#backlog = true;
    }
    if (this.#clock() < this.#retryAt) return;
    const { repository } = this.#options;
    const model = endpoint.model;
    try {
      repository.useModel(model);
      const fresh = await this.#linkNewMessages();
      const history = this.#historyWork(model);
      if (this.#backlog) await this.#embedBacklog(endpoint, history.work);
      else await this.#embedAll(endpoint, [...history.work, ...this.#unembedded(model, fresh)]);
      this.#backlog = false;
      if (history.hashes) {
        // Vectors nothing refers to any more (an edited HISTORY.md, a deleted session) go.
        repository.collect(model, history.hashes);
        this.#historySeen = history.signature;
      }
      if (this.#failures > 0) this.#options.onRecovery?.();
      this.#failures = 0;
      this.#lastError = undefined;
    } catch (error) {
      if (this.#controller.signal.aborted) return;
      this.#fail(error as Error);
    }
  }

  /**
   * Hashes every message stored since the last pass, yielding to the event loop between batches (the first
   * pass over a long history must not stall running turns). Returns them while they are few; past
   * {@link FRESH_CAP} the backlog scan reads them back from the database instead.
   */
  async #linkNewMessages(): Promise<Work[]> {
    const { repository } = this.#options;
    const fresh: Work[] = [];
    for (;;) {
      const rows = repository.unlinkedMessages(LINK_BATCH);
      if (rows.length === 0) return fresh;
      const linked = rows.map((row) => {
        const text = embeddingText(row.text);
        return { rowid: row.rowid, hash: contentHash(text), text };
      });
      repository.link(linked);
      if (!this.#backlog) fresh.push(...linked);
      if (fresh.length > FRESH_CAP) {
        this.#backlog = true;
        fresh.length = 0;
      }
      await new Promise((resolve) => setImmediate(resolve));
      if (this.#controller.signal.aborted) throw this.#controller.signal.reason;
    }
  }

  /**
   * HISTORY.md entries without a vector, and every entry's hash, when the file changed since it was last
   * embedded (its signature is taken before reading, so a later change is seen next time).
   */
  #historyWork(model: string): { work: Work[]; hashes?: string[]; signature: string } {
    const signature = this.#historySignature();
    if (signature === this.#historySeen) return { work: [], signature };
    const entries = parseHistoryEntries(readSnapshot(this.#options.historyFile()).text);
    const all = entries.map((entry) => {
      const text = historyText(entry);
      return { hash: contentHash(text), text };
    });
    const hashes = all.map((item) => item.hash);
    const missing = new Set(this.#options.repository.missing(model, hashes));
    return { work: all.filter((item) => missing.has(item.hash)), hashes, signature };
  }

  #historySignature(): string {
    try {
      const info = statSync(this.#options.historyFile());
      return `${info.mtimeMs}:${info.size}`;
    } catch {
      return 'none';
    }
  }

  #unembedded(model: string, fresh: Work[]): Work[] {
    const unique = [...new Map(fresh.map((item) => [item.hash, item])).values()];
    const missing = new Set(
      this.#options.repository.missing(
        model,
        unique.map((item) => item.hash),
      ),
    );
    return unique.filter((item) => missing.has(item.hash));
  }

  /** Every message text without a vector, oldest first, in batches read from the database as they go. */
  async #embedBacklog(endpoint: EndpointConfig, history: Work[]): Promise<void> {
    await this.#embedAll(endpoint, history);
    for (;;) {
      const batch = this.#options.repository
        .messagesWithoutVector(endpoint.model, MAX_TEXTS_PER_REQUEST)
        .map((row) => ({ hash: row.hash, text: embeddingText(row.text) }));
      if (batch.length === 0) return;
      await this.#embedAll(endpoint, batch);
    }
  }

  async #embedAll(endpoint: EndpointConfig, work: Work[]): Promise<void> {
    const unique = [...new Map(work.map((item) => [item.hash, item])).values()];
    for (let start = 0; start < unique.length; start += MAX_TEXTS_PER_REQUEST) {
      if (this.#controller.signal.aborted) throw this.#controller.signal.reason;
      const batch = unique.slice(start, start + MAX_TEXTS_PER_REQUEST);
      this.#requests++;
      const result = await this.#embed(
        endpoint,
        batch.map((item) => item.text),
        this.#controller.signal,
      );
      if (result.tokens > 0) this.#options.onUsage?.(endpoint.name, result.tokens);
      this.#options.repository.save(
        endpoint.model,
        batch.map((item, index) => ({ hash: item.hash, vector: result.vectors[index]! })),
      );
    }
  }

  #fail(error: Error): void {
    this.#failures++;
    this.#backlog = true;
    this.#lastError = error.message;
    const backoff = Math.min(this.#retry.maxMs, this.#retry.baseMs * 2 ** (this.#failures - 1));
    const asked = error instanceof ProviderError ? (error.retryDelayMs(this.#clock()) ?? 0) : 0;
    this.#retryAt = this.#clock() + Math.max(backoff, asked);
    this.#options.onFailure?.(error, this.#retryAt);
  }
}
