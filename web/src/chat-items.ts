import type { Attachment, StoredMessage } from './types';

/**
 * What the Chat page shows: a conversation as a list of items, one per user message and one per assistant
 * turn (its text and tool calls in the order they happened).
 */

export interface TextSegment {
  type: 'text';
  text: string;
}

export interface ToolSegment {
  type: 'tool';
  id: string;
  name: string;
  hint?: string;
  args?: string;
  result?: string;
  isError?: boolean;
  running: boolean;
}

export type Segment = TextSegment | ToolSegment;

export interface UserItem {
  kind: 'user';
  key: string;
  text: string;
  /** data: URLs of images sent with the message. */
  images: string[];
  at: number;
}

export interface AssistantItem {
  kind: 'assistant';
  key: string;
  segments: Segment[];
  at: number;
  notice?: string;
  error?: string;
  stopped?: boolean;
  attachments?: Attachment[];
  /** Set for messages Wren sent on its own (reminders, the message tool). */
  unprompted?: boolean;
}

export type ChatItem = UserItem | AssistantItem;

let keySeq = 0;
/** A key unique in this page load, for items that have no stored seq yet. */
export const nextKey = (prefix: string) => `${prefix}-${++keySeq}`;

function textOf(content: StoredMessage['message'] & { role: 'user' }): { text: string; images: string[] } {
  if (typeof content.content === 'string') return { text: content.content, images: [] };
  const text: string[] = [];
  const images: string[] = [];
  for (const part of content.content) {
    if (part.type === 'text') text.push(part.text);
    else images.push(`data:${part.mediaType};base64,${part.data}`);
  }
  return { text: text.join('\n'), images };
}

/** A tool result joins its call when the call is in the turn; a result without one gets its own segment. */
function addToolResult(item: AssistantItem, message: StoredMessage['message'] & { role: 'tool' }): void {
  const call = item.segments.find(
    (segment): segment is ToolSegment => segment.type === 'tool' && segment.id === message.toolCallId,
  );
  if (call) {
    call.result = message.content;
    call.isError = message.isError ?? false;
    return;
  }
  item.segments.push({
    type: 'tool',
    id: message.toolCallId,
    name: message.toolName,
    result: message.content,
    isError: message.isError ?? false,
    running: false,
  });
}

/** Stored messages → chat items: one assistant item per turn, its text and tool calls in order. */
export function toItems(messages: StoredMessage[]): ChatItem[] {
  const out: ChatItem[] = [];
  let turn: AssistantItem | undefined;
  const current = (at: number): AssistantItem => {
    if (!turn) {
      turn = { kind: 'assistant', key: nextKey('a'), segments: [], at };
      out.push(turn);
    }
    turn.at = at;
    return turn;
  };
  for (const stored of messages) {
    const message = stored.message;
    if (message.role === 'user') {
      turn = undefined;
      out.push({ kind: 'user', key: `u${stored.seq}`, ...textOf(message), at: stored.createdAt });
    } else if (message.role === 'assistant') {
      const item = current(stored.createdAt);
      if (message.content) item.segments.push({ type: 'text', text: message.content });
      for (const call of message.toolCalls ?? []) {
        item.segments.push({
          type: 'tool',
          id: call.id,
          name: call.name,
          args: call.arguments,
          running: false,
        });
      }
    } else {
      addToolResult(current(stored.createdAt), message);
    }
  }
  return out;
}
