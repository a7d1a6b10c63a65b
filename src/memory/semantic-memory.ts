import { join } from 'node:path';
import type { EmbedTexts } from '../llm/embed-texts.js';
import type { EndpointConfig } from '../llm/endpoint.js';
import type { VectorSupport } from '../store/open-database.js';
import type { Stores } from '../store/open-stores.js';
import { BackgroundEmbedder, type BackgroundEmbedderOptions } from './background-embedder.js';
import { createHybridSearch } from './hybrid-search.js';
import type { MemorySearcher } from './memory-search.js';

/** What semantic memory search is doing, for `wren status` and `GET /api/status` (no keys, no URLs). */
export interface SemanticMemoryStatus {
  /** `hybrid`: keywords and meaning; `keywords`: FTS only (no embedding model, or sqlite-vec missing). */
  mode: 'hybrid' | 'keywords';
  /** The embedding model configured (also when sqlite-vec is missing). */
  model?: string;
  /** Why search stays keyword-only although an embedding model is configured. */
  unavailable?: string;
  /** Distinct texts embedded with the model, and messages still waiting for it. */
  embedded?: number;
  waiting?: number;
  /** Consecutive failed attempts, the last error and when the next attempt is due (epoch ms). */
  failures?: number;
  lastError?: string;
  retryAt?: number;
}

/** Semantic memory search as the app wires it: the search, and the background embedder's life cycle. */
export interface SemanticMemory {
  /** Memory search: keywords and meaning fused when an embedding model is in force, keywords otherwise. */
  search: MemorySearcher;
  /** New messages were stored: embed them soon, in the background. */
  poke(): void;
  /** Starts the background embedder (periodic checks; it does nothing without an embedding model). */
  start(): void;
  /** Stops it, aborting a request in flight. */
  close(): Promise<void>;
  status(): SemanticMemoryStatus;
}

export interface SemanticMemoryOptions {
  /** Where past messages and their vectors are kept. */
  stores: Pick<Stores, 'embeddings' | 'messages'>;
  workspace: () => string;
  timezone?: () => string | undefined;
  /** The embedding endpoint configured now (enabled, tagged `embedding`), or undefined. */
  endpoint: () => EndpointConfig | undefined;
  /** Loads sqlite-vec (memoised per connection); called only once an embedding model is configured. */
  loadVectors: () => VectorSupport;
  minSimilarity: () => number;
  embed?: EmbedTexts;
  clock?: () => number;
  retry?: BackgroundEmbedderOptions['retry'];
  /** How often the embedder looks for work when nothing pokes it. Default 30 s. */
  intervalMs?: number;
  onUsage?: BackgroundEmbedderOptions['onUsage'];
  onFailure?: BackgroundEmbedderOptions['onFailure'];
  onRecovery?: BackgroundEmbedderOptions['onRecovery'];
  /** sqlite-vec could not load: search stays keyword-only. Told once per process. */
  onVectorsUnavailable?: (reason: string) => void;
  /** A query could not be embedded (that search answered by keywords). */
  onQueryError?: (error: unknown) => void;
}

/**
 * Builds semantic memory search over one database and workspace: vectors are computed by a background
 * embedder and searched with sqlite-vec, fused with keyword search. With no embedding model configured,
 * or without sqlite-vec, it is keyword search exactly as before and the embedder idles.
 */
export function createSemanticMemory(options: SemanticMemoryOptions): SemanticMemory {
  const repository = options.stores.embeddings;
  let told = false;
  /** The endpoint when vector search can run: configured, and sqlite-vec loaded. */
  const inForce = (): EndpointConfig | undefined => {
    const endpoint = options.endpoint();
    if (!endpoint) return undefined;
    const support = options.loadVectors();
    if (support.ok) return endpoint;
    if (!told) {
      told = true;
      options.onVectorsUnavailable?.(support.reason);
    }
    return undefined;
  };
  const embedder = new BackgroundEmbedder({
    repository,
    endpoint: inForce,
    historyFile: () => join(options.workspace(), 'HISTORY.md'),
    ...(options.embed ? { embed: options.embed } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.onUsage ? { onUsage: options.onUsage } : {}),
    ...(options.onFailure ? { onFailure: options.onFailure } : {}),
    ...(options.onRecovery ? { onRecovery: options.onRecovery } : {}),
  });
  const search = createHybridSearch({
    stores: options.stores,
    workspace: options.workspace,
    ...(options.timezone ? { timezone: options.timezone } : {}),
    endpoint: inForce,
    minSimilarity: options.minSimilarity,
    available: () => embedder.available(),
    ...(options.embed ? { embed: options.embed } : {}),
    ...(options.onQueryError ? { onError: options.onQueryError } : {}),
  });
  return {
    search,
    poke: () => {
      if (options.endpoint()) embedder.poke();
    },
    start: () => embedder.start(options.intervalMs),
    close: () => embedder.close(),
    status: () => {
      const configured = options.endpoint();
      if (!configured) return { mode: 'keywords' };
      const support = options.loadVectors();
      if (!support.ok)
        return {
          mode: 'keywords',
          model: configured.model,
          unavailable: `sqlite-vec did not load: ${support.reason}`,
        };
      const { failures, lastError, retryAt } = embedder.status();
      return {
        mode: 'hybrid',
        model: configured.model,
        ...repository.counts(configured.model),
        ...(failures > 0 ? { failures, retryAt } : {}),
        ...(lastError ? { lastError } : {}),
      };
    },
  };
}
