import { randomUUID } from 'node:crypto';
import type { MessageBus } from '../bus/message-bus.js';
import type {
  ApprovalAnswerResult,
  ApprovalChoice,
  ApprovalOutcome,
  ApprovalRequest,
} from '../bus/messages.js';

/** How a held call ended, and who answered. */
export interface ApprovalResult {
  outcome: Exclude<ApprovalOutcome, 'unattended'>;
  by?: string;
}

export type NewApprovalRequest = Omit<ApprovalRequest, 'id' | 'createdAt' | 'expiresAt'>;

interface Pending {
  request: ApprovalRequest;
  settle: (result: ApprovalResult) => void;
}

/** Where waiting requests are kept so a restart can ask again (the store's pending approvals). */
export interface ApprovalStore {
  save(request: ApprovalRequest): void;
  remove(id: string): void;
  all(): ApprovalRequest[];
}

/** How long an answer given after a restart lets the same call through when the turn makes it again. */
export const RESUMED_ANSWER_MS = 15 * 60 * 1000;

export interface ApprovalBrokerOptions {
  /** Where requests and resolutions are announced (channels, the web app). */
  bus?: MessageBus;
  /** Keeps waiting requests across restarts; without it a shutdown ends them as `cancelled`. */
  store?: ApprovalStore;
  /**
   * A request that waited through a restart was resolved (its turn is gone): the owner's answer, so the
   * conversation can carry on (or be told it was denied or expired).
   */
  onResumedAnswer?: (request: ApprovalRequest, result: ApprovalResult) => void;
  /** Milliseconds a request waits; read per request so a config reload applies. */
  timeoutMs: () => number;
  now?: () => number;
}

/**
 * Holds tool calls until the owner answers. Each request resolves exactly once: with the owner's choice,
 * `timeout` (deny) when nobody answered in time, or `cancelled` when the turn was aborted. Requests and their
 * resolution are published on the bus.
 */
export class ApprovalBroker {
  private readonly waiting = new Map<string, Pending>();
  private readonly now: () => number;
  /** Requests carried over from before a restart, and the channels they were shown on since. */
  private readonly resumed = new Map<string, Set<string>>();
  /** Answers given after a restart, waiting for the turn to make the same call again. */
  private readonly preAnswered = new Map<string, { result: ApprovalResult; until: number }>();
  private shuttingDown = false;

  constructor(private readonly options: ApprovalBrokerOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Requests awaiting an answer, oldest first. */
  pending(): ApprovalRequest[] {
    return [...this.waiting.values()].map((entry) => entry.request);
  }

  /**
   * Publishes a request and waits for its answer. Never rejects: an abort of `signal` resolves `cancelled`,
   * the timeout resolves `timeout`.
   */
  request(fields: NewApprovalRequest, signal?: AbortSignal): Promise<ApprovalResult> {
    const key = callKey(fields);
    const answered = this.preAnswered.get(key);
    if (answered) {
      this.preAnswered.delete(key);
      if (answered.until > this.now()) return Promise.resolve(answered.result);
    }
    const createdAt = this.now();
    const timeout = this.options.timeoutMs();
    const request: ApprovalRequest = {
      ...fields,
      id: randomUUID(),
      createdAt,
      expiresAt: createdAt + timeout,
    };
    return new Promise((resolve) => {
      const onAbort = () => settle({ outcome: 'cancelled' });
      const timer = setTimeout(() => settle({ outcome: 'timeout' }), timeout);
      const settle = (result: ApprovalResult) => {
        if (!this.waiting.delete(request.id)) return;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        // A shutdown leaves the stored request to be asked again at the next start.
        if (!this.shuttingDown) this.options.store?.remove(request.id);
        this.announceResolved(request, result);
        resolve(result);
      };
      this.waiting.set(request.id, { request, settle });
      this.options.store?.save(request);
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.options.bus?.publishApproval({ type: 'approval-requested', request });
    });
  }

  /** Answers a pending request. Refuses unknown or already resolved ids and choices the request does not offer. */
  answer(id: string, choice: ApprovalChoice, by: string): ApprovalAnswerResult {
    const entry = this.waiting.get(id);
    if (!entry) {
      return {
        ok: false,
        code: 'not_found',
        message: `No pending approval ${id}; it was answered, timed out or cancelled.`,
      };
    }
    if (!entry.request.choices.includes(choice)) {
      return {
        ok: false,
        code: 'not_allowed',
        message: `"${choice}" is not possible for this call; answer one of: ${entry.request.choices.join(', ')}.`,
      };
    }
    entry.settle({ outcome: choice, by });
    return { ok: true };
  }

  /**
   * Cancels every pending request (shutdown). With a store they stay stored, to be asked again by
   * `resume` at the next start.
   */
  cancelAll(): void {
    this.shuttingDown = true;
    for (const entry of [...this.waiting.values()]) entry.settle({ outcome: 'cancelled' });
  }

  /**
   * Takes back the requests a previous run left waiting (shut down or crashed), each with a fresh answer
   * window. Their turns are gone: an approval is remembered for the same call in the same session (the turn
   * that resumes makes it again), and `onResumedAnswer` is told. Returns how many were taken back.
   */
  resume(): number {
    const stored = this.options.store?.all() ?? [];
    for (const old of stored) {
      if (this.waiting.has(old.id)) continue;
      const createdAt = this.now();
      const request: ApprovalRequest = { ...old, createdAt, expiresAt: createdAt + this.options.timeoutMs() };
      this.resumed.set(request.id, new Set());
      const timer = setTimeout(() => settle({ outcome: 'timeout' }), request.expiresAt - createdAt);
      timer.unref?.();
      const settle = (result: ApprovalResult) => {
        if (!this.waiting.delete(request.id)) return;
        clearTimeout(timer);
        this.resumed.delete(request.id);
        if (this.shuttingDown) return;
        this.options.store?.remove(request.id);
        if (result.outcome === 'once' || result.outcome === 'session' || result.outcome === 'always')
          this.preAnswered.set(callKey(request), { result, until: this.now() + RESUMED_ANSWER_MS });
        this.announceResolved(request, result);
        this.options.onResumedAnswer?.(request, result);
      };
      this.waiting.set(request.id, { request, settle });
    }
    return stored.length;
  }

  /** Shows the requests taken back at start on `channel` (once per channel), when a face of it connects. */
  replay(channel: string): void {
    for (const [id, shown] of this.resumed) {
      const entry = this.waiting.get(id);
      if (!entry || shown.has(channel) || entry.request.channel !== channel) continue;
      shown.add(channel);
      this.options.bus?.publishApproval({ type: 'approval-requested', request: entry.request });
    }
  }

  private announceResolved(request: ApprovalRequest, result: ApprovalResult): void {
    this.options.bus?.publishApproval({
      type: 'approval-resolved',
      id: request.id,
      sessionId: request.sessionId,
      channel: request.channel,
      chatId: request.chatId,
      tool: request.tool,
      outcome: result.outcome,
      ...(result.by ? { by: result.by } : {}),
    });
  }
}

/** The same call in the same session, as shown to the owner. */
function callKey(request: Pick<ApprovalRequest, 'sessionId' | 'tool' | 'args'>): string {
  return `${request.sessionId}\u0000${request.tool}\u0000${request.args}`;
}
