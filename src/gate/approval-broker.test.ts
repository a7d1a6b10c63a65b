import { describe, expect, it } from 'vitest';
import { gateDatabase } from '../../test/support/gate-database.js';
import { MessageBus } from '../bus/message-bus.js';
import type { ApprovalEvent, ApprovalRequest } from '../bus/messages.js';
import { PendingApprovalRepository } from '../store/pending-approval-repository.js';
import { ApprovalBroker, type ApprovalResult } from './approval-broker.js';

const fields = {
  sessionId: 's1',
  channel: 'telegram',
  chatId: '42',
  senderId: '42',
  tool: 'exec',
  args: '{"command":"touch x"}',
  reason: 'runs a command',
  choices: ['once', 'session', 'always', 'deny'] as ApprovalRequest['choices'],
};

function broker(
  db = gateDatabase(),
  onResumedAnswer?: (request: ApprovalRequest, result: ApprovalResult) => void,
) {
  const bus = new MessageBus();
  const events: ApprovalEvent[] = [];
  bus.subscribeApprovals((event) => events.push(event));
  const store = new PendingApprovalRepository(db);
  const instance = new ApprovalBroker({
    bus,
    store,
    timeoutMs: () => 60_000,
    ...(onResumedAnswer ? { onResumedAnswer } : {}),
  });
  return { instance, store, events, db };
}

describe('ApprovalBroker across a restart', () => {
  it('keeps a waiting request through a shutdown and asks again after it; the answer lets the same call through once', async () => {
    const first = broker();
    const held = first.instance.request(fields);
    expect(first.store.all()).toHaveLength(1);
    first.instance.cancelAll();
    expect(await held).toEqual({ outcome: 'cancelled' });
    expect(first.store.all()).toHaveLength(1);

    const resumedAnswers: string[] = [];
    const second = broker(first.db, (request, result) =>
      resumedAnswers.push(`${request.tool}:${result.outcome}`),
    );
    expect(second.instance.resume()).toBe(1);
    const [pending] = second.instance.pending();
    expect(pending).toMatchObject({ tool: 'exec', chatId: '42' });
    // Shown to each face of its channel once, when it connects.
    second.instance.replay('telegram');
    second.instance.replay('telegram');
    second.instance.replay('slack');
    expect(second.events.filter((event) => event.type === 'approval-requested')).toHaveLength(1);

    expect(second.instance.answer(pending!.id, 'once', 'telegram:42')).toEqual({ ok: true });
    expect(resumedAnswers).toEqual(['exec:once']);
    expect(second.store.all()).toHaveLength(0);
    // The resumed turn makes the call again: let through without a question, once only.
    expect(await second.instance.request(fields)).toEqual({ outcome: 'once', by: 'telegram:42' });
    const again = second.instance.request(fields);
    expect(second.instance.pending()).toHaveLength(1);
    second.instance.cancelAll();
    expect(await again).toEqual({ outcome: 'cancelled' });
  });

  it('forgets a request once answered, or stopped by its turn', async () => {
    const { instance, store } = broker();
    const controller = new AbortController();
    const stopped = instance.request(fields, controller.signal);
    controller.abort();
    expect(await stopped).toEqual({ outcome: 'cancelled' });
    const answered = instance.request(fields);
    instance.answer(instance.pending()[0]!.id, 'deny', 'cli');
    expect(await answered).toEqual({ outcome: 'deny', by: 'cli' });
    expect(store.all()).toEqual([]);
  });

  it('a denial after the restart lets nothing through and tells whoever handles it', async () => {
    const first = broker();
    void first.instance.request(fields);
    first.instance.cancelAll();
    const told: string[] = [];
    const second = broker(first.db, (_request, result) => told.push(result.outcome));
    second.instance.resume();
    second.instance.answer(second.instance.pending()[0]!.id, 'deny', 'cli');
    expect(told).toEqual(['deny']);
    const next = second.instance.request(fields);
    expect(second.instance.pending()).toHaveLength(1);
    second.instance.cancelAll();
    await next;
  });
});
