import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../bus/messages.js';
import { NumberedApprovals } from './numbered-approvals.js';

const request = (id: string, choices: ApprovalRequest['choices']): ApprovalRequest => ({
  id,
  sessionId: 's',
  channel: 'dingtalk',
  chatId: 'manager1234',
  senderId: 'manager1234',
  tool: 'exec',
  args: '{"command":"touch x"}',
  reason: 'runs a command',
  choices,
  createdAt: 0,
  expiresAt: 1,
});

describe('numbered approval answers', () => {
  it('numbers the choices in order and turns a bare number into the typed answer while one waits', () => {
    const approvals = new NumberedApprovals();
    const text = approvals.question(request('ab12cd34-0000', ['once', 'session', 'deny']));
    expect(text).toContain('1 = Allow once · 2 = Allow for this chat · 3 = Deny');
    expect(text).not.toContain('Reply with one of');
    expect(approvals.translate(' 3 ')).toBe('deny ab12cd');
    expect(approvals.translate('1')).toBe('once ab12cd');
    expect(approvals.translate('4')).toBeUndefined();
    expect(approvals.translate('0')).toBeUndefined();
    expect(approvals.translate('1 please')).toBeUndefined();
    expect(approvals.translate('12345678901234567890')).toBeUndefined();
  });

  it('asks for the id while several wait, takes a number with an id, and forgets resolved ones', () => {
    const approvals = new NumberedApprovals();
    approvals.question(request('ab12cd34-0000', ['once', 'always', 'deny']));
    approvals.question(request('ef56ab78-0000', ['once', 'deny']));
    expect(approvals.translate('1')).toBe('ambiguous');
    expect(approvals.translate('2 ef56ab')).toBe('deny ef56ab');
    expect(approvals.translate('2 AB12CD')).toBe('always ab12cd');
    expect(approvals.translate('1 999999')).toBeUndefined();
    approvals.resolved('ab12cd34-0000');
    expect(approvals.translate('1')).toBe('once ef56ab');
    approvals.resolved('ef56ab78-0000');
    expect(approvals.translate('1')).toBeUndefined();
  });
});
