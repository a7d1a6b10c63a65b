import type { ChatMessage } from '../llm/types.js';

/** Tool results shorter than this are kept as they are even after the model consumed them. */
export const STUB_THRESHOLD_CHARS = 1200;
const KEEP_CHARS = 400;

/**
 * Replaces tool results the model has already answered (a later assistant message exists) with a short stub,
 * to save tokens in later rounds and turns. Pure and deterministic: the same transcript always yields the same
 * request, so provider prompt caches keep hitting once a result has been stubbed.
 */
export function compressToolResults(messages: ChatMessage[]): ChatMessage[] {
  let lastAssistant = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === 'assistant') {
      lastAssistant = i;
      break;
    }
  }
  return messages.map((message, index) => {
    if (message.role !== 'tool' || index > lastAssistant || message.content.length <= STUB_THRESHOLD_CHARS) {
      return message;
    }
    const omitted = message.content.length - KEEP_CHARS;
    return {
      ...message,
      content: `${message.content.slice(0, KEEP_CHARS)}\n[… ${omitted} more characters of this earlier ${message.toolName} result omitted; call the tool again if you need them.]`,
    };
  });
}
