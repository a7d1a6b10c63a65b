import type { ImagePart, StopReason, Usage } from '../llm/types.js';

/** A message from a person (or a scheduled job) entering Wren through a channel. */
export interface InboundMessage {
  /** Unique per message; replies and events refer to it. Platform ids make inbound de-duplication possible. */
  id: string;
  channel: string;
  senderId: string;
  chatId: string;
  text: string;
  media?: ImagePart[];
  /** Run in this session instead of the active session of `channel:chatId`. */
  sessionId?: string;
  /** Whether the sender may be asked for approvals interactively (a terminal, a chat with the owner). */
  interactive?: boolean;
  /**
   * Set by the channel when the sender is the owner (the terminal, the gateway's token holder, a configured
   * owner id). Absent means not the owner: fail closed.
   */
  fromOwner?: boolean;
  metadata?: Record<string, unknown>;
}

/** The routing key of a conversation: one active session per key. */
export function sessionKeyOf(message: Pick<InboundMessage, 'channel' | 'chatId'>): string {
  return `${message.channel}:${message.chatId}`;
}

/** Wren's answer to one inbound message. Exactly one is published per inbound message. */
export interface OutboundMessage {
  channel: string;
  chatId: string;
  /** The inbound message this answers. */
  replyTo: string;
  sessionId: string;
  text: string;
  /** `error` when the turn failed; `text` then says why in words for the user. */
  kind: 'reply' | 'error' | 'notice';
  usage: Usage;
  stopReason?: StopReason;
  /**
   * What `text` adds after the model's reply (round limit hit, output cut short, stopped). Channels that
   * streamed the reply show just this at the end.
   */
  notice?: string;
}

interface EventBase {
  sessionId: string;
  /** The inbound message whose turn produced the event. */
  replyTo: string;
  channel: string;
  chatId: string;
}

/** Progress of a turn, for channels that show it live. */
export type AgentEvent =
  | (EventBase & { type: 'turn-start' })
  | (EventBase & { type: 'text-delta'; text: string })
  | (EventBase & { type: 'tool-call-start'; callId: string; name: string; hint: string })
  | (EventBase & {
      type: 'tool-call-end';
      callId: string;
      name: string;
      isError: boolean;
      /** The first few hundred characters of what the model was given. */
      preview: string;
    })
  | (EventBase & { type: 'turn-end'; stopReason: StopReason; usage: Usage });
