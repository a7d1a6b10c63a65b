import type {
  AgentEvent,
  ApprovalAnswer,
  ApprovalAnswerResult,
  ApprovalEvent,
  InboundMessage,
  OutboundMessage,
  ScheduleEvent,
} from './messages.js';

type Listener<T> = (value: T) => void;
/** An outbound listener may return its send's promise (see `deliver`). */
type OutboundListener = (message: OutboundMessage) => void | Promise<void>;

/**
 * Where channels and the agent meet; neither imports the other. In-process and synchronous to dispatch:
 * listeners must not block (the runtime queues work itself). Inbound messages published before a consumer
 * is attached are buffered, so start-up order does not lose messages.
 */
export class MessageBus {
  private inboundConsumer: Listener<InboundMessage> | undefined;
  private readonly pendingInbound: InboundMessage[] = [];
  private readonly outboundListeners = new Set<OutboundListener>();
  private readonly deliverers = new Map<string, number>();
  private readonly eventListeners = new Set<Listener<AgentEvent>>();
  private eventFilter: ((event: AgentEvent) => AgentEvent[]) | undefined;
  private outboundFilter: ((message: OutboundMessage) => OutboundMessage) | undefined;
  private readonly cancelListeners = new Set<Listener<string>>();
  private readonly approvalListeners = new Set<Listener<ApprovalEvent>>();
  private readonly scheduleListeners = new Set<Listener<ScheduleEvent>>();
  private approvalHandler: ((answer: ApprovalAnswer) => ApprovalAnswerResult) | undefined;
  private approvalReplayer: ((channel: string) => void) | undefined;

  publishInbound(message: InboundMessage): void {
    if (this.inboundConsumer) this.inboundConsumer(message);
    else this.pendingInbound.push(message);
  }

  /** Attaches the single consumer of inbound messages (the runtime). */
  consumeInbound(consumer: Listener<InboundMessage>): () => void {
    if (this.inboundConsumer) throw new Error('the bus already has an inbound consumer');
    this.inboundConsumer = consumer;
    for (const message of this.pendingInbound.splice(0)) consumer(message);
    return () => {
      this.inboundConsumer = undefined;
    };
  }

  /** Asks whoever handles inbound message `messageId` to drop it (queued) or cancel it (running). */
  cancel(messageId: string): void {
    for (const listener of this.cancelListeners) listener(messageId);
  }

  subscribeCancel(listener: Listener<string>): () => void {
    this.cancelListeners.add(listener);
    return () => this.cancelListeners.delete(listener);
  }

  publishOutbound(published: OutboundMessage): void {
    const message = this.outboundFilter ? this.outboundFilter(published) : published;
    for (const listener of this.outboundListeners) {
      const sent: unknown = listener(message);
      // A face's send failure is its own to log; here it must not become an unhandled rejection.
      if (sent instanceof Promise) sent.catch(() => {});
    }
  }

  /**
   * Publishes a message Wren sends on its own and resolves once every face that took it has sent it;
   * rejects with the first send failure (so a scheduled delivery is retried, not lost). Listeners that
   * deliver return their send's promise.
   */
  async deliver(message: OutboundMessage): Promise<void> {
    const sends: Promise<unknown>[] = [];
    for (const listener of this.outboundListeners) {
      const sent: unknown = listener(message);
      if (sent instanceof Promise) sends.push(sent);
    }
    await Promise.all(sends);
  }

  /**
   * Listens to every outbound message. A channel that delivers messages Wren sends on its own (not only
   * replies it waits for) names itself in `delivers`, so senders can tell whether anyone will see them.
   */
  subscribeOutbound(listener: OutboundListener, delivers?: string): () => void {
    this.outboundListeners.add(listener);
    const unannounce = delivers ? this.announceDelivery(delivers) : () => {};
    return () => {
      if (this.outboundListeners.delete(listener)) unannounce();
    };
  }

  /**
   * Counts `channel` as delivering what Wren sends on its own until the returned function is called (for a
   * face that already listens and learns later that someone watches: an open event stream). Idempotent undo.
   */
  announceDelivery(channel: string): () => void {
    this.deliverers.set(channel, (this.deliverers.get(channel) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const left = (this.deliverers.get(channel) ?? 1) - 1;
      if (left > 0) this.deliverers.set(channel, left);
      else this.deliverers.delete(channel);
    };
  }

  /** Channels with a listener that delivers unsolicited messages right now. */
  deliveringChannels(): string[] {
    return [...this.deliverers.keys()];
  }

  publishEvent(event: AgentEvent): void {
    for (const passed of this.eventFilter ? this.eventFilter(event) : [event])
      for (const listener of this.eventListeners) listener(passed);
  }

  /**
   * Passes every event through `filter` before any listener sees it (it may hold text back, split or drop
   * events): the gate redacts streamed text here. One filter; a second call replaces it.
   */
  filterEvents(filter: ((event: AgentEvent) => AgentEvent[]) | undefined): void {
    this.eventFilter = filter;
  }

  /** Passes every outbound message through `filter` before any face sends it (the gate redacts its text). */
  filterOutbound(filter: ((message: OutboundMessage) => OutboundMessage) | undefined): void {
    this.outboundFilter = filter;
  }

  subscribeEvents(listener: Listener<AgentEvent>): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  /** Announces what the scheduler did (a new next due time, a feed entry) to faces that show it live. */
  publishSchedule(event: ScheduleEvent): void {
    for (const listener of this.scheduleListeners) listener(event);
  }

  subscribeSchedule(listener: Listener<ScheduleEvent>): () => void {
    this.scheduleListeners.add(listener);
    return () => this.scheduleListeners.delete(listener);
  }

  /** Announces an approval request or its resolution to every channel that presents approvals. */
  publishApproval(event: ApprovalEvent): void {
    for (const listener of this.approvalListeners) listener(event);
  }

  subscribeApprovals(listener: Listener<ApprovalEvent>): () => void {
    this.approvalListeners.add(listener);
    return () => this.approvalListeners.delete(listener);
  }

  /**
   * Hands the owner's answer to the gate and says whether it took effect (unknown or already resolved id,
   * a choice the request does not offer). Without a gate attached the answer is refused with `no_gate`.
   */
  answerApproval(answer: ApprovalAnswer): ApprovalAnswerResult {
    if (!this.approvalHandler) {
      return { ok: false, code: 'no_gate', message: 'No approval gate is running.' };
    }
    return this.approvalHandler(answer);
  }

  /** Attaches the single handler of approval answers (the gate). */
  handleApprovalAnswers(handler: (answer: ApprovalAnswer) => ApprovalAnswerResult): () => void {
    if (this.approvalHandler) throw new Error('the bus already has an approval handler');
    this.approvalHandler = handler;
    return () => {
      if (this.approvalHandler === handler) this.approvalHandler = undefined;
    };
  }

  /**
   * A face of `channel` just connected: approval requests it has not been shown yet (those that waited
   * through a restart) are announced again. Without a gate attached, nothing happens.
   */
  replayApprovals(channel: string): void {
    this.approvalReplayer?.(channel);
  }

  /** Attaches the gate's replay of waiting approval requests (see `replayApprovals`). */
  handleApprovalReplays(replayer: (channel: string) => void): () => void {
    this.approvalReplayer = replayer;
    return () => {
      if (this.approvalReplayer === replayer) this.approvalReplayer = undefined;
    };
  }

  /**
   * Publishes `message` and resolves with its outbound answer, forwarding the turn's progress events to
   * `onEvent`. Used by request/response channels (HTTP, one-shot CLI). When `signal` aborts (the client went
   * away) the turn is cancelled and the promise rejects.
   */
  request(
    message: InboundMessage,
    onEvent?: Listener<AgentEvent>,
    signal?: AbortSignal,
  ): Promise<OutboundMessage> {
    return new Promise((resolve, reject) => {
      const stopEvents = onEvent
        ? this.subscribeEvents((event) => {
            if (event.replyTo === message.id) onEvent(event);
          })
        : () => {};
      const cleanup = () => {
        stopOutbound();
        stopEvents();
        signal?.removeEventListener('abort', onAbort);
      };
      const stopOutbound = this.subscribeOutbound((outbound) => {
        if (outbound.replyTo !== message.id) return;
        cleanup();
        resolve(outbound);
      });
      const onAbort = () => {
        cleanup();
        this.cancel(message.id);
        reject(signal?.reason ?? new Error('aborted'));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.publishInbound(message);
    });
  }
}
