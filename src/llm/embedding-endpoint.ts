import type { EndpointConfig } from './endpoint.js';

/**
 * The tag that makes a `models:` entry an embedding model (any OpenAI-compatible `/embeddings` endpoint).
 * Such an entry only ever embeds text for memory search; the endpoint pool never sends it a chat request,
 * and chat endpoints are never asked for embeddings.
 */
export const EMBEDDING_TAG = 'embedding';

/** Whether `endpoint` is an embedding model (tagged {@link EMBEDDING_TAG}). */
export function isEmbeddingEndpoint(endpoint: Pick<EndpointConfig, 'tags'>): boolean {
  return endpoint.tags.includes(EMBEDDING_TAG);
}

/**
 * The embedding endpoint in force: the enabled one tagged `embedding` with the lowest priority (config order
 * breaks ties), or undefined when none is. Only one is used at a time: vectors of two models do not compare.
 */
export function pickEmbeddingEndpoint(endpoints: readonly EndpointConfig[]): EndpointConfig | undefined {
  return endpoints
    .map((endpoint, index) => ({ endpoint, index }))
    .filter(({ endpoint }) => endpoint.enabled && isEmbeddingEndpoint(endpoint))
    .sort((a, b) => a.endpoint.priority - b.endpoint.priority || a.index - b.index)[0]?.endpoint;
}
