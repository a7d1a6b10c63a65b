import { describe, expect, it } from 'vitest';
import { gateDatabase } from '../../test/support/gate-database.js';
import { GrantRepository, targetCovers } from './grant-repository.js';

describe('GrantRepository', () => {
  it('binds grants to tool + target; path prefixes end in /', () => {
    expect(targetCovers('git', 'git')).toBe(true);
    expect(targetCovers('git', 'gitk')).toBe(false);
    expect(targetCovers('notes/', 'notes/a/b.md')).toBe(true);
    expect(targetCovers('notes', 'notes-old/x')).toBe(false);
    expect(targetCovers(undefined, 'anything')).toBe(true);
    expect(targetCovers('git', undefined)).toBe(false);
  });

  it('prefers standing grants over once grants, consumes once grants, revokes idempotently', () => {
    const db = gateDatabase();
    const grants = new GrantRepository(db, () => 1000);
    const once = grants.add({ tool: 'write_file', target: 'notes/', scope: 'once', createdBy: 'cli' });
    expect(grants.take('write_file', 'notes/a.md', 's1')?.id).toBe(once.id);
    expect(grants.take('write_file', 'notes/a.md', 's1')).toBeUndefined();
    const session = grants.add({
      tool: 'write_file',
      target: 'notes/',
      scope: 'session',
      sessionId: 's1',
      createdBy: 'cli',
    });
    grants.add({ tool: 'write_file', target: 'notes/', scope: 'once', createdBy: 'cli' });
    expect(grants.take('write_file', 'notes/b.md', 's1')?.id).toBe(session.id);
    expect(grants.take('write_file', 'notes/b.md', 's2')?.scope).toBe('once');
    expect(grants.revoke(session.id)).toBe(true);
    expect(grants.revoke(session.id)).toBe(false);
    expect(grants.active()).toEqual([]);
    expect(() => grants.add({ tool: 'x', scope: 'session', createdBy: 'cli' })).toThrow(/needs a sessionId/);
    expect(() => grants.add({ tool: 'x', scope: 'always', sessionId: 's', createdBy: 'cli' })).toThrow();
    db.close();
  });
});
