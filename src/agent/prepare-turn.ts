import type { InboundMessage } from '../bus/messages.js';
import { estimateMessageTokens, estimateTokens } from '../llm/token-estimate.js';
import type { ChatMessage, ChatModel, ModelLimits, ModelRequest } from '../llm/types.js';
import type { ContextBuilder } from './context-builder.js';
import { repairToolPairs } from './repair-tool-pairs.js';
import type { SessionRecord, SessionStore } from './session-store.js';
import { capText } from './tool-output.js';
import type { ToolRegistry } from './tool-registry.js';

/** Remembers the token count of the last text it was asked about. */
class LastTokenCount {
  private text: string | undefined;
  private tokens = 0;

  of(text: string): number {
    if (text !== this.text) {
      this.text = text;
      this.tokens = estimateTokens(text);
    }
    return this.tokens;
  }
}

/** What one turn starts from. */
export interface PreparedTurn {
  system: ModelRequest['system'];
  /** The owner's message as it is stored. */
  userMessage: ChatMessage;
  /** The live history that fits the window, tool calls and results paired. */
  history: ChatMessage[];
  /** The owner's message as the model gets it: the runtime note in front, shortened if it cannot fit. */
  requestUser: ChatMessage;
  limits: ModelLimits;
}

/**
 * Builds the prompt of a turn: the system prompt (with the session's cascading summary), the newest
 * history that fits `context window − max output − reserve − system − tools − the new message`, and the
 * new message with the time and channel note. Remembers the token counts of the system prompt and tool
 * schemas, which rarely change between turns.
 */
export class TurnPreparation {
  private readonly promptTokens = new LastTokenCount();
  private readonly toolTokens = new LastTokenCount();

  constructor(
    private readonly deps: {
      store: SessionStore;
      model: ChatModel;
      registry: ToolRegistry;
      context: () => ContextBuilder;
    },
  ) {}

  async prepare(
    message: InboundMessage,
    session: SessionRecord,
    reserveTokens: number,
  ): Promise<PreparedTurn> {
    const { store, model, registry } = this.deps;
    const context = this.deps.context();
    const { summary } = await store.memoryState(session.id);
    // Only the owner's own turns (and scheduled runs whose answer goes only to the owner) see private context.
    const guest = message.fromOwner !== true && message.forOwner !== true;
    const system = context.system(guest ? { summary, guest } : { summary });
    const userMessage: ChatMessage = message.media?.length
      ? { role: 'user', content: [{ type: 'text', text: message.text }, ...message.media] }
      : { role: 'user', content: message.text };
    const limits = model.limits();
    const fixed =
      this.promptTokens.of(system.map((block) => block.text).join('\n')) +
      this.toolTokens.of(JSON.stringify(registry.requestDefinitions(new Set()))) +
      estimateMessageTokens(userMessage) +
      64;
    const budget = limits.contextWindow - limits.maxOutputTokens - reserveTokens - fixed;
    const history =
      message.withoutHistory || budget <= 0
        ? []
        : repairToolPairs((await store.recentMessages(session.id, budget)).map((stored) => stored.message));
    const requestUser = withNote(
      userMessage,
      context.runtimeNote(message.channel),
      Math.max(256, (budget + estimateMessageTokens(userMessage)) * 3),
    );
    return { system, userMessage, history, requestUser, limits };
  }
}

/** Puts the runtime note in front of the user's text and caps text that could not fit the window anyway. */
function withNote(message: ChatMessage, note: string, maxChars: number): ChatMessage {
  if (message.role !== 'user') return message;
  const shorten = (text: string) =>
    text.length > maxChars
      ? `${capText(text, maxChars)}\n[This message was too long for the model's context window and was shortened.]`
      : text;
  if (typeof message.content === 'string')
    return { role: 'user', content: `${note}\n${shorten(message.content)}` };
  return {
    role: 'user',
    content: message.content.map((part, index) =>
      index === 0 && part.type === 'text' ? { type: 'text', text: `${note}\n${shorten(part.text)}` } : part,
    ),
  };
}
