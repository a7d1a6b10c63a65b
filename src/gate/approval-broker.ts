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

export interface ApprovalBrokerOptions {
  /** Where requests and resolutions are announced (channels, the web app). */
  bus?: MessageBus;
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
        resolve(result);
      };
      this.waiting.set(request.id, { request, settle });
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

  /** Cancels every pending request (shutdown). */
  cancelAll(): void {
    for (const entry of [...this.waiting.values()]) entry.settle({ outcome: 'cancelled' });
  }
}
