import { describe, expect, it } from 'vitest';
import { routeHarness } from '../../test/support/route-harness.js';
import { AuditRepository } from '../store/audit-repository.js';
import { GrantRepository } from '../store/grant-repository.js';
import { createGrantService } from './grant-service.js';

const harness = routeHarness();

function setup() {
  const { db } = harness.database('wren-grantservice-');
  const grants = new GrantRepository(db);
  const audit = new AuditRepository(db);
  return { grants, audit, service: createGrantService({ grants, audit }) };
}

describe('grant service', () => {
  it('lists and revokes grants in force; an unknown or revoked id is not found', () => {
    const { grants, service } = setup();
    const grant = grants.add({
      tool: 'send_email',
      target: 'example.com',
      scope: 'always',
      createdBy: 'cli',
    });
    expect(service.list().map((entry) => entry.id)).toEqual([grant.id]);
    expect(service.revoke('nope')).toEqual({
      ok: false,
      code: 'not_found',
      error: 'No grant nope in force.',
    });
    expect(service.revoke(grant.id)).toEqual({ ok: true });
    expect(service.revoke(grant.id)).toMatchObject({ ok: false, code: 'not_found' });
    expect(service.list()).toEqual([]);
  });

  it('pages the audit log newest first, keeping a page between 1 and 1000 entries', () => {
    const { audit, service } = setup();
    for (const sessionId of ['a', 'b', 'a']) {
      audit.append({
        sessionId,
        channel: 'cli',
        senderId: 'owner',
        tool: 'exec',
        args: '{}',
        decision: 'allow',
        rule: 'policy',
        reason: 'safe',
        outcome: 'allowed',
      });
    }
    expect(service.audit().map((entry) => entry.sessionId)).toEqual(['a', 'b', 'a']);
    expect(service.audit({ sessionId: 'a' })).toHaveLength(2);
    expect(service.audit({ limit: 0 })).toHaveLength(1);
    expect(service.audit({ limit: -5 })).toHaveLength(1);
    expect(service.audit({ limit: 5000 })).toHaveLength(3);
    const [newest] = service.audit({ limit: 1 });
    expect(service.audit({ beforeId: newest!.id }).map((entry) => entry.sessionId)).toEqual(['b', 'a']);
  });
});
