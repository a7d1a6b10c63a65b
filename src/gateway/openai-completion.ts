import { randomBytes } from 'node:crypto';
import type { StopReason, Usage } from '../llm/types.js';
import { WREN_MODEL } from './openai-chat-request.js';

/** OpenAI's `usage` object for a turn's token counts (every model call of the turn). */
export interface OpenAiUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
}

export type FinishReason = 'stop' | 'length';

/** What identifies one completion across its chunks. */
export interface CompletionHeader {
  id: string;
  created: number;
}

/** A fresh completion id (`chatcmpl-…`) and its creation time in Unix seconds. */
export function newCompletion(now: number = Date.now()): CompletionHeader {
  return { id: `chatcmpl-${randomBytes(12).toString('base64url')}`, created: Math.floor(now / 1000) };
}

export function openAiUsage(usage: Usage): OpenAiUsage {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    ...(usage.cachedInputTokens !== undefined
      ? { prompt_tokens_details: { cached_tokens: usage.cachedInputTokens } }
      : {}),
  };
}

/** A reply cut at the output limit finishes with `length`; every other reply with `stop`. */
export function finishReasonOf(stopReason: StopReason | undefined): FinishReason {
  return stopReason === 'length' ? 'length' : 'stop';
}

/** The `chat.completion` object of a whole reply. */
export function chatCompletion(
  header: CompletionHeader,
  reply: { content: string; finishReason: FinishReason; usage: Usage },
) {
  return {
    id: header.id,
    object: 'chat.completion' as const,
    created: header.created,
    model: WREN_MODEL,
    choices: [
      {
        index: 0,
        message: { role: 'assistant' as const, content: reply.content, refusal: null },
        logprobs: null,
        finish_reason: reply.finishReason,
      },
    ],
    usage: openAiUsage(reply.usage),
  };
}

/**
 * One `chat.completion.chunk`: a delta of the single choice, or (with `usage` and no delta) the usage chunk
 * that ends a stream whose client asked for `stream_options.include_usage` — its `choices` are empty.
 * `includeUsage` adds `usage: null` to the other chunks, as OpenAI does.
 */
export function completionChunk(
  header: CompletionHeader,
  chunk:
    | {
        delta: { role?: 'assistant'; content?: string };
        finishReason?: FinishReason;
        includeUsage: boolean;
      }
    | { usage: Usage },
) {
  const base = {
    id: header.id,
    object: 'chat.completion.chunk' as const,
    created: header.created,
    model: WREN_MODEL,
  };
  if ('usage' in chunk) return { ...base, choices: [], usage: openAiUsage(chunk.usage) };
  return {
    ...base,
    choices: [{ index: 0, delta: chunk.delta, logprobs: null, finish_reason: chunk.finishReason ?? null }],
    ...(chunk.includeUsage ? { usage: null } : {}),
  };
}
