import { resolveEndpoints } from '../config/load-config.js';
import type { WrenConfig } from '../config/wren-config.js';
import { pickEmbeddingEndpoint } from '../llm/embedding-endpoint.js';
import { type MemorySearcher, searchMemory } from '../memory/memory-search.js';
import type { MessageSearchStore, Stores } from '../store/open-stores.js';
import type { ServiceContext } from './service-context.js';

/** Memory search for a command that runs beside (or without) the running Wren. */
export interface MemorySearchService {
  /** Full-text search over the messages of every session (what keyword search reads). */
  readonly messages: MessageSearchStore;
  /**
   * The searcher for `config`; `warn` hears, one line each, why an answer fell back to keywords
   * (default: stderr, prefixed `wren:`).
   */
  searcher(config: WrenConfig, warn?: (line: string) => void): Promise<MemorySearcher>;
}

const toStderr = (line: string) => process.stderr.write(`wren: ${line}\n`);

export function createMemorySearchService(
  stores: Pick<Stores, 'embeddings' | 'messages' | 'loadVectors'>,
  _context: ServiceContext,
): MemorySearchService {
  return {
    get messages() {
      return stores.messages;
    },
    searcher: (config, warn = toStderr) => memorySearcher(stores, config, warn),
  };
}

/**
 * The search `wren memory search` runs: the same as `memory_search` in the running Wren — keywords, fused
 * with meaning when an embedding model is configured (over the vectors the running Wren has computed; this
 * command embeds only the query). When sqlite-vec cannot load or the query cannot be embedded, one line on
 * stderr says so and the answer is by keywords. Without an embedding model nothing more than keyword
 * search is even loaded.
 */
async function memorySearcher(
  stores: Pick<Stores, 'embeddings' | 'messages' | 'loadVectors'>,
  config: WrenConfig,
  warn: (line: string) => void,
): Promise<MemorySearcher> {
  const endpoint = pickEmbeddingEndpoint(resolveEndpoints(config));
  if (!endpoint) {
    return async (query) =>
      searchMemory(
        { messages: stores.messages, workspace: config.workspace, timezone: config.agent.timezone },
        query,
      );
  }
  const { createHybridSearch } = await import('../memory/hybrid-search.js');
  return createHybridSearch({
    stores,
    workspace: () => config.workspace,
    timezone: () => config.agent.timezone,
    endpoint: () => {
      const support = stores.loadVectors();
      if (support.ok) return endpoint;
      warn(`sqlite-vec could not load (${support.reason}); searching by keywords only`);
      return undefined;
    },
    minSimilarity: () => config.memory.searchMinSimilarity,
    onError: (error) =>
      warn(`could not embed the query (${(error as Error).message}); searching by keywords only`),
  });
}
