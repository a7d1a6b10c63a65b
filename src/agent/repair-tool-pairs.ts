import type { ChatMessage } from '../llm/types.js';

/** What stands in for a tool result that never arrived (the process died while the call ran). */
export const INTERRUPTED_RESULT =
  'No result: Wren stopped (crash, kill or shutdown) while this call ran. It may or may not have taken effect; check before repeating it.';

/**
 * History as providers accept it: every assistant tool call followed by exactly one result with its id, no
 * result without its call. Turns are stored message by message as they happen, so a turn killed mid-way
 * leaves calls without results; those get {@link INTERRUPTED_RESULT} (marked as an error) right after the
 * results that did arrive, which also tells the model what already ran. Pure; returns the input when
 * nothing needs repair.
 */
export function repairToolPairs(messages: readonly ChatMessage[]): ChatMessage[] {
  const repaired: ChatMessage[] = [];
  let open: Map<string, string> | undefined;
  let changed = false;
  const closeOpen = () => {
    for (const [id, name] of open ?? []) {
      repaired.push({
        role: 'tool',
        toolCallId: id,
        toolName: name,
        content: INTERRUPTED_RESULT,
        isError: true,
      });
      changed = true;
    }
    open = undefined;
  };
  for (const message of messages) {
    if (message.role === 'tool') {
      if (open?.delete(message.toolCallId)) repaired.push(message);
      else changed = true; // a result whose call is not the one before it: providers refuse it
      continue;
    }
    closeOpen();
    repaired.push(message);
    if (message.role === 'assistant' && message.toolCalls?.length) {
      open = new Map(message.toolCalls.map((call) => [call.id, call.name]));
    }
  }
  closeOpen();
  return changed ? repaired : [...messages];
}
