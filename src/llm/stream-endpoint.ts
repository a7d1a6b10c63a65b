import type {
  LanguageModelV3CallOptions,
  LanguageModelV3FinishReason,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { createDeadline } from '../util/create-deadline.js';
import { createLanguageModel } from './create-language-model.js';
import type { EndpointConfig } from './endpoint.js';
import { networkError, toEndpointError } from './provider-error.js';
import { stopErrorMessage } from './stop-error-message.js';
import { toLanguageModelPrompt, toLanguageModelTools } from './to-language-model-prompt.js';
import type { ModelEvent, ModelRequest, ModelResult, StopReason, ToolCall, Usage } from './types.js';

/** The shape of `streamEndpoint`; the endpoint pool accepts a substitute with this contract. */
export type StreamEndpoint = (
  endpoint: EndpointConfig,
  request: ModelRequest,
  signal?: AbortSignal,
) => AsyncIterable<ModelEvent>;

type FinishPart = Extract<LanguageModelV3StreamPart, { type: 'finish' }>;

interface StreamState {
  text: string;
  toolCalls: ToolCall[];
}

/**
 * One model call against one endpoint over its wire protocol (OpenAI chat-completions, Anthropic messages or
 * Gemini), streamed: `text-delta` and `tool-call` events, then one `done` when the provider finished
 * normally (stopReason `stop`, `tool_calls`, `length`, or `error` for a content-filter stop or a prompt the
 * provider blocked, with a message naming the reason).
 *
 * Low-level contract (the endpoint pool builds the never-throwing `ChatModel` on top of it):
 * - throws `ProviderError` when the provider refuses (HTTP error status or an error event in the stream),
 *   `NetworkError` when no complete answer arrives (refused, DNS, dropped, or `endpoint.timeoutMs` passed);
 * - throws the signal's reason when the caller's `signal` aborts;
 * - makes exactly one HTTP request (no retries) and releases the connection when the consumer stops early.
 */
export async function* streamEndpoint(
  endpoint: EndpointConfig,
  request: ModelRequest,
  signal?: AbortSignal,
): AsyncGenerator<ModelEvent, void, undefined> {
  const deadline = createDeadline(endpoint.timeoutMs, signal);
  let reader: ReadableStreamDefaultReader<LanguageModelV3StreamPart> | undefined;
  const state: StreamState = { text: '', toolCalls: [] };
  try {
    const model = await createLanguageModel(endpoint);
    const { stream } = await model.doStream(toCallOptions(endpoint, request, deadline.signal));
    reader = stream.getReader();
    let finish: FinishPart | undefined;
    let streamError: unknown;
    for (;;) {
      const { done, value: part } = await reader.read();
      if (done) break;
      if (part.type === 'text-delta' && part.delta) {
        state.text += part.delta;
        yield { type: 'text-delta', text: part.delta };
      } else if (part.type === 'tool-call' && !part.providerExecuted) {
        const call: ToolCall = { id: part.toolCallId, name: part.toolName, arguments: part.input };
        state.toolCalls.push(call);
        yield { type: 'tool-call', call };
      } else if (part.type === 'error') {
        streamError ??= part.error;
      } else if (part.type === 'finish') {
        finish = part;
      }
    }
    const tolerated = streamError !== undefined && isMissingFinishReason(streamError, state);
    if (streamError !== undefined && !tolerated) throw streamError;
    yield { type: 'done', result: toResult(state, tolerated ? undefined : finish) };
  } catch (error) {
    if (signal?.aborted) throw signal.reason ?? error;
    if (deadline.timedOut) throw networkError(endpoint, 'timeout', error);
    throw toEndpointError(error, endpoint);
  } finally {
    deadline.dispose();
    reader?.cancel().catch(() => {});
  }
}

function toCallOptions(
  endpoint: EndpointConfig,
  request: ModelRequest,
  abortSignal: AbortSignal,
): LanguageModelV3CallOptions {
  const prompt = toLanguageModelPrompt(request, {
    vision: endpoint.vision,
    anthropicCache: endpoint.protocol === 'anthropic',
  });
  const maxOutputTokens = Math.min(
    request.maxOutputTokens ?? endpoint.maxOutputTokens,
    endpoint.maxOutputTokens || Number.POSITIVE_INFINITY,
  );
  const options: LanguageModelV3CallOptions = { prompt, maxOutputTokens, abortSignal };
  const tools = toLanguageModelTools(request.tools);
  if (tools) {
    options.tools = tools;
    if (request.toolChoice) options.toolChoice = { type: request.toolChoice };
  }
  if (request.temperature !== undefined) options.temperature = request.temperature;
  return options;
}

/** Maps the provider's finish to our result; a missing finish (lenient servers) counts as a normal stop. */
function toResult(state: StreamState, finish: FinishPart | undefined): ModelResult {
  const stopReason = mapStopReason(finish?.finishReason, state.toolCalls.length > 0);
  const result: ModelResult = {
    text: state.text,
    toolCalls: state.toolCalls,
    stopReason,
    usage: mapUsage(finish?.usage),
  };
  if (stopReason === 'error') result.errorMessage = stopErrorMessage(finish);
  return result;
}

/** Unified finish reason → our StopReason; tool calls win over a plain `stop` (Gemini, Ollama report that). */
export function mapStopReason(
  reason: LanguageModelV3FinishReason | undefined,
  hasToolCalls: boolean,
): StopReason {
  switch (reason?.unified) {
    case 'length':
      return 'length';
    case 'content-filter':
    case 'error':
      return 'error';
    case 'tool-calls':
      return 'tool_calls';
    default:
      return hasToolCalls ? 'tool_calls' : 'stop';
  }
}

/** V3 usage → our Usage; missing counts become 0; `cachedInputTokens` only when the provider reports a hit. */
export function mapUsage(usage: LanguageModelV3Usage | undefined): Usage {
  const result: Usage = {
    inputTokens: usage?.inputTokens.total ?? 0,
    outputTokens: usage?.outputTokens.total ?? 0,
  };
  const cached = usage?.inputTokens.cacheRead;
  if (cached !== undefined && cached > 0) result.cachedInputTokens = cached;
  return result;
}

/** The OpenAI-compatible parser flags a stream that ended without `finish_reason`; keep what arrived. */
function isMissingFinishReason(error: unknown, state: StreamState): boolean {
  const message = error instanceof Error ? error.message : '';
  return /without a finish reason/i.test(message) && (state.text.length > 0 || state.toolCalls.length > 0);
}
