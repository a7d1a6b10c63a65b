import type {
  AgentEvent,
  ApprovalAnswerResult,
  ApprovalChoice,
  ApprovalEvent,
  ApprovalRequest,
  OutboundMessage,
} from '../../bus/messages.js';
import { ChannelBase } from '../channel-base.js';
import type { ChannelBus } from '../channel-bus.js';

/** The terminal's conversation: `cli:terminal`, the same active session whether attached to a gateway or not. */
export const TERMINAL_CHAT = 'terminal';

export interface TerminalChannelOptions {
  /** The in-process bus, or a running gateway's (the CLI's remote chat bus). */
  bus: ChannelBus;
  /** Whether approvals are asked here; without it, calls that need approval are denied at once. */
  interactive: boolean;
  onError?: (error: unknown) => void;
}

/** What the terminal's screen shows of traffic it did not ask for. */
export interface TerminalHandlers {
  /** Something Wren sends the terminal on its own (`message`, `send_file`, a reminder, a subagent report). */
  onMessage(message: OutboundMessage): void;
  /** An approval request of the terminal's conversation, or its resolution. */
  onApproval(event: ApprovalEvent): void;
}

/**
 * The terminal as a channel (`cli`): the person at the keyboard is the owner (they run the process of this
 * home). Interactive lines go to the `terminal` conversation; a one-shot run (`wren chat -m`) speaks in its
 * own session and cannot be asked for approvals.
 */
export class TerminalChannel extends ChannelBase {
  private readonly interactive: boolean;
  private handlers: TerminalHandlers | undefined;

  constructor(options: TerminalChannelOptions) {
    super({ name: 'cli', bus: options.bus, ...(options.onError ? { onError: options.onError } : {}) });
    this.interactive = options.interactive;
  }

  get asksApprovals(): boolean {
    return this.interactive;
  }

  /** Shows unsolicited messages and approvals through `handlers` from now on. */
  async start(_signal?: AbortSignal, handlers?: TerminalHandlers): Promise<void> {
    if (handlers) this.handlers = handlers;
    this.attach({ delivers: true, approvals: this.interactive });
    this.setState('connected');
  }

  async stop(): Promise<void> {
    this.detach();
    this.setState('stopped');
  }

  ownerChat(): string {
    return TERMINAL_CHAT;
  }

  protected override owns(where: { channel: string; chatId: string }): boolean {
    return where.channel === this.name && where.chatId === TERMINAL_CHAT;
  }

  async send(message: OutboundMessage): Promise<void> {
    this.handlers?.onMessage(message);
  }

  override async presentApproval(request: ApprovalRequest): Promise<void> {
    this.handlers?.onApproval({ type: 'approval-requested', request });
  }

  override async approvalResolved(event: Extract<ApprovalEvent, { type: 'approval-resolved' }>) {
    this.handlers?.onApproval(event);
  }

  /** One line of the owner into the terminal's conversation (or the pinned `sessionId`). */
  say(text: string, options: { sessionId?: string; onEvent?: (event: AgentEvent) => void } = {}) {
    const message = this.ownerMessage(TERMINAL_CHAT, text, {
      interactive: this.interactive,
      ...(options.sessionId ? { sessionId: options.sessionId } : {}),
    });
    return this.request(message, options.onEvent);
  }

  /**
   * One turn in session `sessionId` that nobody can be asked about: calls needing approval are denied at
   * once, and each such denial is reported to `onDenied` with the tool's name.
   */
  async once(text: string, sessionId: string, onDenied: (tool: string) => void): Promise<OutboundMessage> {
    const stop = this.bus.subscribeApprovals((event) => {
      if (
        event.type === 'approval-resolved' &&
        event.outcome === 'unattended' &&
        event.sessionId === sessionId
      )
        onDenied(event.tool);
    });
    try {
      return await this.request(this.ownerMessage(sessionId, text, { sessionId, interactive: false }));
    } finally {
      stop();
    }
  }

  /** The owner's answer typed at the terminal. */
  answer(approvalId: string, choice: ApprovalChoice): Promise<ApprovalAnswerResult> {
    return this.answerApproval(true, 'cli', approvalId, choice);
  }
}
