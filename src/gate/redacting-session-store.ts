import type { NewMessage, SessionStore } from '../agent/session-store.js';
import type { ChatMessage } from '../llm/types.js';
import type { Redactor } from './redactor.js';

function redactMessage(message: ChatMessage, redactor: Redactor): ChatMessage {
  if (message.role === 'user' && typeof message.content !== 'string')
    return {
      ...message,
      content: message.content.map((part) =>
        part.type === 'text' ? { ...part, text: redactor.text(part.text) } : part,
      ),
    };
  if (message.role === 'assistant' && message.toolCalls)
    return {
      ...message,
      content: redactor.text(message.content),
      toolCalls: redactor.value(message.toolCalls),
    };
  return { ...message, content: redactor.text(message.content as string) } as ChatMessage;
}

/**
 * `store` with every message redacted as it is stored (text, tool-call arguments, tool details; images kept):
 * what the transcript, search and later prompts read holds no secret the redactor knows, even one a model or
 * the owner wrote out. Every other method is the store's own.
 */
export function redactingSessionStore<S extends SessionStore>(store: S, redactor: Redactor): S {
  const appendMessages = (sessionId: string, messages: NewMessage[]) =>
    store.appendMessages(
      sessionId,
      messages.map((item) => ({
        ...item,
        message: redactMessage(item.message, redactor),
        ...(item.details !== undefined ? { details: redactor.value(item.details) } : {}),
      })),
    );
  return new Proxy(store, {
    get(target, property) {
      if (property === 'appendMessages') return appendMessages;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
