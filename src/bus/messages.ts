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
  /**
   * Set when the answer goes only to the owner although the sender is not the owner (a scheduled run on
   * untrusted content, such as a mail trigger): the turn still sees the owner's private context. Absent, a
   * turn whose sender is not the owner is a guest's: no memory, profile, tasks or standing instructions.
   */
  forOwner?: boolean;
  /**
   * Subagent hops that led to this message: absent (0) for people, a subagent's depth for its report. The
   * turn it starts may spawn only while this is below `agent.subagents.max_depth`.
   */
  spawnDepth?: number;
  /**
   * The turn sees none of its session's earlier messages (the heartbeat: one small fixed context each time,
   * however many heartbeats ran before).
   */
  withoutHistory?: boolean;
  metadata?: Record<string, unknown>;
}

/** The routing key of a conversation: one active session per key. */
export function sessionKeyOf(message: Pick<InboundMessage, 'channel' | 'chatId'>): string {
  return `${message.channel}:${message.chatId}`;
}

/** A file delivered with a message (`send_file`). */
export interface Attachment {
  /** Absolute real path inside the workspace. */
  path: string;
  /** Path relative to the workspace, as shown and as used in download links. */
  name: string;
  size: number;
}

/**
 * What Wren sends: the answer to one inbound message (exactly one per inbound message), or — with kind
 * `message` and `replyTo` empty — something it sends on its own (the `message`/`send_file` tools).
 */
export interface OutboundMessage {
  channel: string;
  chatId: string;
  /** The inbound message this answers. */
  replyTo: string;
  sessionId: string;
  text: string;
  /** `error` when the turn failed; `text` then says why in words for the user. */
  kind: 'reply' | 'error' | 'notice' | 'message';
  attachments?: Attachment[];
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
  | (EventBase & {
      type: 'tool-call-start';
      callId: string;
      name: string;
      hint: string;
      /** The call's arguments as the model wrote them (JSON), cut to 4,000 characters; not yet redacted. */
      args?: string;
    })
  | (EventBase & {
      type: 'tool-call-end';
      callId: string;
      name: string;
      isError: boolean;
      /** The first few hundred characters of what the model was given. */
      preview: string;
    })
  | (EventBase & { type: 'turn-end'; stopReason: StopReason; usage: Usage });

/** What the scheduler tells live faces: when it next wakes (ms, or null when nothing is scheduled). */
export type ScheduleEvent =
  | { type: 'next-due'; at: number | null }
  /** A run finished with a feed entry: `id` is the run's outbox id (the entry's `outboxId`), not the entry's. */
  | { type: 'feed'; id: number; title: string };

/** How the owner answers an approval request. `always` is bound to tool + target and stored. */
export type ApprovalChoice = 'once' | 'session' | 'always' | 'deny';

/**
 * A tool call held until the owner answers: the contract every channel and the web app present. `args` is
 * the call's arguments as JSON with secrets redacted; `choices` lists what may be answered (a call carrying a
 * danger signature can only be approved `once`).
 */
export interface ApprovalRequest {
  id: string;
  sessionId: string;
  channel: string;
  chatId: string;
  /** Who sent the message whose turn made the call. */
  senderId: string;
  tool: string;
  args: string;
  /** Why the gate asks, in words for the owner. */
  reason: string;
  /** What an `always` or `session` grant would bind to (program, path prefix, host), when known. */
  target?: string;
  /**
   * The tool's own assessment, one line each (`runs: rm, curl`, `reaches: example.com`, `danger: …`):
   * every face shows these with the question.
   */
  facts?: string[];
  choices: ApprovalChoice[];
  /** Unix milliseconds. */
  createdAt: number;
  /** No answer by then means deny. */
  expiresAt: number;
}

/** How a held call ended. `unattended`: nobody could be asked (a non-interactive run), denied at once. */
export type ApprovalOutcome = ApprovalChoice | 'timeout' | 'cancelled' | 'unattended';

/** Approval traffic on the bus: channels show requests and drop them when resolved elsewhere. */
export type ApprovalEvent =
  | { type: 'approval-requested'; request: ApprovalRequest }
  | {
      type: 'approval-resolved';
      /** The request id; absent for `unattended` denials, which never became a request. */
      id?: string;
      sessionId: string;
      channel: string;
      chatId: string;
      tool: string;
      outcome: ApprovalOutcome;
      /** Who answered (`cli`, `api`, a platform id), when someone did. */
      by?: string;
      /** What the model is told, for outcomes that deny. */
      reason?: string;
    };

/** The owner's answer to one approval request. */
export interface ApprovalAnswer {
  id: string;
  choice: ApprovalChoice;
  /** Who answered, for the audit log. */
  by: string;
}

/** Whether an answer took effect. */
export type ApprovalAnswerResult =
  | { ok: true }
  | { ok: false; code: 'not_found' | 'not_allowed' | 'no_gate'; message: string };
