import { estimateMessageTokens, estimateRequestTokens } from '../llm/token-estimate.js';
import type { ChatMessage, ModelRequest } from '../llm/types.js';
import { capText } from './tool-output.js';

const MIN_TOOL_CHARS = 400;

/**
 * Shrinks a request until its estimated prompt fits `maxInputTokens`: first the oldest history messages go
 * (never this turn's, and never leaving a tool result without its call), then this turn's largest tool
 * results are cut to head + tail. Returns the request unchanged when it already fits. A request that cannot
 * be made to fit is returned as small as this gets it; the provider then reports the overflow.
 */
export function fitWindow(request: ModelRequest, historyCount: number, maxInputTokens: number): ModelRequest {
  let total = estimateRequestTokens(request);
  if (total <= maxInputTokens) return request;
  const costs = request.messages.map(estimateMessageTokens);
  let start = 0;
  while (total > maxInputTokens && start < historyCount) {
    total -= costs[start]!;
    start++;
  }
  while (start < historyCount && request.messages[start]?.role === 'tool') {
    total -= costs[start]!;
    start++;
  }
  const messages: ChatMessage[] = request.messages.slice(start);
  const turnStart = historyCount - start;
  for (let guard = 0; total > maxInputTokens && guard < 50; guard++) {
    let largest = -1;
    for (let i = turnStart; i < messages.length; i++) {
      const message = messages[i]!;
      if (message.role !== 'tool' || message.content.length <= MIN_TOOL_CHARS) continue;
      if (largest < 0 || message.content.length > (messages[largest] as { content: string }).content.length)
        largest = i;
    }
    if (largest < 0) break;
    const message = messages[largest] as Extract<ChatMessage, { role: 'tool' }>;
    const before = estimateMessageTokens(message);
    const shrunk = {
      ...message,
      content: capText(message.content, Math.max(MIN_TOOL_CHARS, Math.floor(message.content.length / 2))),
    };
    messages[largest] = shrunk;
    total -= before - estimateMessageTokens(shrunk);
  }
  return { ...request, messages };
}
