import { resolveEndpoints } from '../config/load-config.js';
import type { WrenConfig } from '../config/wren-config.js';
import { pickEmbeddingEndpoint } from '../llm/embedding-endpoint.js';
import { type MemorySearcher, searchMemory } from '../memory/memory-search.js';
import type { Stores } from '../store/open-stores.js';

const warn = (line: string) => process.stderr.write(`wren: ${line}\n`);

/**
 * The search `wren memory search` runs: the same as `memory_search` in the running Wren — keywords, fused
 * with meaning when an embedding model is configured (over the vectors the running Wren has computed; this
 * command embeds only the query). When sqlite-vec cannot load or the query cannot be embedded, one line on
 * stderr says so and the answer is by keywords. Without an embedding model nothing more than keyword
 * search is even loaded.
 */
export async function cliMemorySearch(
  stores: Pick<Stores, 'embeddings' | 'messages' | 'loadVectors'>,
  config: WrenConfig,
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
