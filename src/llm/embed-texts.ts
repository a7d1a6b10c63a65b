import { createDeadline } from '../util/create-deadline.js';
import type { EndpointConfig } from './endpoint.js';
import { networkError, ProviderError, toEndpointError } from './provider-error.js';

/** The vectors of one request, in the order of the texts, and the tokens the provider counted. */
export interface Embeddings {
  vectors: number[][];
  /** Input tokens as the provider reported them (0 when it did not). */
  tokens: number;
}

/** The shape of {@link embedTexts}; background work and search accept a substitute in tests. */
export type EmbedTexts = (
  endpoint: EndpointConfig,
  texts: readonly string[],
  signal?: AbortSignal,
) => Promise<Embeddings>;

/** The most texts {@link embedTexts} sends in one request. */
export const MAX_TEXTS_PER_REQUEST = 64;

/**
 * Embeds up to {@link MAX_TEXTS_PER_REQUEST} texts in one request to `endpoint`'s OpenAI-compatible
 * `/embeddings` (one `doEmbed` call of the AI SDK's OpenAI-compatible embedding model: no SDK retries, callers
 * own retry and backoff), within the endpoint's timeout.
 * @throws ProviderError (the provider refused, or answered with vectors Wren cannot use: a wrong count,
 * differing lengths, non-numbers), NetworkError (no complete answer, timeout), or the signal's reason when
 * `signal` aborts. Messages never contain the api key.
 */
export const embedTexts: EmbedTexts = async (endpoint, texts, signal) => {
  if (texts.length === 0) return { vectors: [], tokens: 0 };
  if (texts.length > MAX_TEXTS_PER_REQUEST)
    throw new RangeError(`embedTexts takes at most ${MAX_TEXTS_PER_REQUEST} texts per call`);
  const deadline = createDeadline(endpoint.timeoutMs, signal);
  try {
    const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
    const provider = createOpenAICompatible({
      name: 'openai-compatible',
      baseURL: endpoint.baseUrl.replace(/\/+$/, ''),
      apiKey: endpoint.apiKey || undefined,
      headers: endpoint.headers,
    });
    const result = await provider
      .embeddingModel(endpoint.model)
      .doEmbed({ values: [...texts], abortSignal: deadline.signal });
    return {
      vectors: checkVectors(endpoint, texts.length, result.embeddings),
      tokens: result.usage?.tokens ?? 0,
    };
  } catch (error) {
    if (signal?.aborted) throw signal.reason ?? error;
    if (deadline.timedOut) throw networkError(endpoint, 'timeout', error);
    throw toEndpointError(error, endpoint);
  } finally {
    deadline.dispose();
  }
};

function checkVectors(endpoint: EndpointConfig, count: number, vectors: number[][]): number[][] {
  const problem =
    vectors.length !== count
      ? `${vectors.length} vectors for ${count} texts`
      : vectors.some((vector) => vector.length === 0 || vector.length !== vectors[0]!.length)
        ? 'vectors of differing or zero length'
        : vectors.some((vector) => vector.some((value) => !Number.isFinite(value)))
          ? 'values that are not finite numbers'
          : undefined;
  if (!problem) return vectors;
  const message = `Endpoint "${endpoint.name}" (model "${endpoint.model}") answered the embedding request with ${problem}. Check that it is an embedding model.`;
  throw new ProviderError({ message, status: 0, endpoint: endpoint.name, bodyExcerpt: problem });
}
