import type { LanguageModelV3 } from '@ai-sdk/provider';
import { createCopilotFetch } from './copilot-fetch.js';
import { copilotTokenSourceFor } from './copilot-token-registry.js';
import type { EndpointConfig } from './endpoint.js';

/**
 * Creates the AI SDK provider model for one endpoint's wire protocol, pointed at its base URL with its key
 * and headers. Keys are always passed explicitly (an empty string when the endpoint has none), so the SDKs
 * never fall back to reading `ANTHROPIC_API_KEY` or `GOOGLE_GENERATIVE_AI_API_KEY` from the environment.
 * No request is sent; each protocol's SDK module loads on first use, so start-up pays only for what is used.
 * A Copilot endpoint (`endpoint.copilot`) gets no key here: its `fetch` adds the Copilot API token per request.
 */
export async function createLanguageModel(endpoint: EndpointConfig): Promise<LanguageModelV3> {
  const baseURL = endpoint.baseUrl.replace(/\/+$/, '');
  const headers = endpoint.headers;
  switch (endpoint.protocol) {
    case 'openai': {
      const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
      const copilot = endpoint.copilot
        ? createCopilotFetch({ endpoint, source: copilotTokenSourceFor(endpoint) })
        : undefined;
      return createOpenAICompatible({
        name: 'openai-compatible',
        baseURL,
        apiKey: copilot ? undefined : endpoint.apiKey || undefined,
        headers,
        ...(copilot ? { fetch: copilot } : {}),
        includeUsage: true,
        transformRequestBody: usesMaxCompletionTokens(baseURL) ? renameMaxTokens : undefined,
      }).chatModel(endpoint.model);
    }
    case 'anthropic': {
      const { createAnthropic } = await import('@ai-sdk/anthropic');
      return createAnthropic({ baseURL, apiKey: endpoint.apiKey ?? '', headers }).messages(endpoint.model);
    }
    case 'gemini': {
      const { createGoogleGenerativeAI } = await import('@ai-sdk/google');
      return createGoogleGenerativeAI({ baseURL, apiKey: endpoint.apiKey ?? '', headers }).chat(
        endpoint.model,
      );
    }
  }
}

/** OpenAI's own API rejects `max_tokens` for reasoning models; `max_completion_tokens` works for all. */
function usesMaxCompletionTokens(baseURL: string): boolean {
  try {
    return new URL(baseURL).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}

function renameMaxTokens(body: Record<string, unknown>): Record<string, unknown> {
  if (body.max_tokens === undefined) return body;
  const { max_tokens, ...rest } = body;
  return { ...rest, max_completion_tokens: max_tokens };
}
