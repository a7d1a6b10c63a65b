import { resolveEndpoints } from '../config/load-config.js';
import type { WrenConfig } from '../config/wren-config.js';
import type { EmbedTexts } from '../llm/embed-texts.js';
import { pickEmbeddingEndpoint } from '../llm/embedding-endpoint.js';
import type { EndpointConfig } from '../llm/endpoint.js';
import { createSemanticMemory, type SemanticMemory } from '../memory/semantic-memory.js';
import type { VectorSupport } from '../store/open-database.js';
import type { Stores } from '../store/open-stores.js';
import type { Logger } from '../util/logger.js';

export interface SemanticSearchWiring {
  stores: Pick<Stores, 'embeddings' | 'messages' | 'usage' | 'loadVectors'>;
  /** The configuration in force (read on every use: a live edit may add, change or drop the model). */
  config: () => WrenConfig;
  logger: Pick<Logger, 'info' | 'warn'>;
  /** Tests: substitutes for the embedding request, the extension loader and the backoff. */
  embed?: EmbedTexts;
  loadVectors?: () => VectorSupport;
  retry?: { baseMs: number; maxMs: number };
  intervalMs?: number;
}

/** The embedding endpoint `config` puts in force: the enabled `models:` entry tagged `embedding`. */
function embeddingEndpoint(config: WrenConfig): EndpointConfig | undefined {
  return pickEmbeddingEndpoint(resolveEndpoints(config));
}

/**
 * Part of the composition root: semantic memory search for the app's memory (`createMemory({ semantic })`).
 * The embedding model comes from `models:` (tag `embedding`), re-read on every use; sqlite-vec is loaded
 * into the app's connection only once one is configured, and a failure to load is one warning in the log
 * (search stays keyword-only). Embedding failures are logged with the next attempt; tokens go to the usage
 * table under the endpoint's name. Messages never hold the api key (the endpoint's errors are redacted, and
 * the log's redactor knows every model key).
 */
export function wireSemanticSearch(options: SemanticSearchWiring): SemanticMemory {
  const { stores, logger } = options;
  const load = options.loadVectors ?? (() => stores.loadVectors());
  return createSemanticMemory({
    stores,
    workspace: () => options.config().workspace,
    timezone: () => options.config().agent.timezone,
    endpoint: () => embeddingEndpoint(options.config()),
    loadVectors: load,
    minSimilarity: () => options.config().memory.searchMinSimilarity,
    ...(options.embed ? { embed: options.embed } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.intervalMs ? { intervalMs: options.intervalMs } : {}),
    onUsage: (endpoint, tokens) =>
      stores.usage.record({ endpoint, usage: { inputTokens: tokens, outputTokens: 0 } }),
    onFailure: (error, retryAt) =>
      logger.warn(
        { error: error.message, retryAt: new Date(retryAt).toISOString() },
        'embedding for memory search failed; keyword search still works, will retry',
      ),
    onRecovery: () => logger.info('embedding for memory search works again'),
    onVectorsUnavailable: (reason) =>
      logger.warn({ reason }, 'sqlite-vec could not load: memory search uses keywords only'),
    onQueryError: (error) =>
      logger.warn(
        { error: (error as Error).message },
        'could not embed a memory search query; searched by keywords',
      ),
  });
}
