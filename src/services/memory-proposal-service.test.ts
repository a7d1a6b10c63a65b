import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { routeHarness } from '../../test/support/route-harness.js';
import { normalizeFact } from '../memory/memory-file.js';
import { openStores } from '../store/open-stores.js';
import { createMemoryProposalService } from './memory-proposal-service.js';

const harness = routeHarness();
const NOW = Date.parse('2026-04-01T09:00:00Z');
const MEMORY = '# Memory\n\n- Ana is vegetarian.\n- Prefers short answers.\n';

function setup(files: Record<string, string> = {}) {
  const { dir, db } = harness.database('wren-proposalservice-');
  const workspace = join(dir, 'workspace');
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'MEMORY.md'), MEMORY);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(workspace, name), text);
  const stores = openStores(db);
  const proposals = createMemoryProposalService(stores, {
    now: () => NOW,
    timezone: () => 'UTC',
    defaultTargets: () => [],
  });
  const propose = (
    text = '- Prefers short answers.',
    file: 'USER.md' | 'AGENTS.md' | 'SOUL.md' = 'USER.md',
  ) =>
    stores.memoryProposals.add([
      { file, text, key: normalizeFact(text), reason: 'a standing preference', dreamKey: 'tidy:2026-04-01' },
    ]);
  const read = (name: string) => readFileSync(join(workspace, name), 'utf8');
  return { workspace, stores, proposals, propose, read };
}

describe('memory proposal service', () => {
  it('accepts: the line moves to USER.md, versions by dream:accepted, a HISTORY.md note', async () => {
    const { workspace, stores, proposals, propose, read } = setup({
      'USER.md': '# User\n\n- Lives in Lisbon.\n',
    });
    const [made] = propose();
    expect(proposals.list()).toEqual([made]);
    const accepted = await proposals.accept(workspace, made!.id);
    expect(accepted).toMatchObject({ ok: true, proposal: { id: made!.id, status: 'accepted' } });
    expect(read('USER.md')).toBe('# User\n\n- Lives in Lisbon.\n\n- Prefers short answers.\n');
    expect(read('MEMORY.md')).toBe('# Memory\n\n- Ana is vegetarian.\n');
    for (const path of ['USER.md', 'MEMORY.md'])
      expect(stores.fileVersions.list({ path }).map((version) => version.author)).toContain('dream:accepted');
    expect(read('HISTORY.md')).toContain('Moved "prefers short answers" from MEMORY.md to USER.md');
    // Decided: out of the pending list, still in the full one.
    expect(proposals.list()).toEqual([]);
    expect(proposals.list('all')).toMatchObject([{ id: made!.id, status: 'accepted' }]);
  });

  it('refuses a second decision and an unknown id, and leaves the files as they are', async () => {
    const { workspace, proposals, propose, read } = setup();
    const [made] = propose();
    expect((await proposals.accept(workspace, made!.id)).ok).toBe(true);
    const after = { user: read('USER.md'), memory: read('MEMORY.md'), history: read('HISTORY.md') };
    expect(await proposals.accept(workspace, made!.id)).toMatchObject({ ok: false, code: 'refused' });
    expect(proposals.dismiss(made!.id)).toMatchObject({ ok: false, code: 'refused' });
    expect(await proposals.accept(workspace, 99)).toMatchObject({ ok: false, code: 'not_found' });
    expect(proposals.dismiss(99)).toMatchObject({ ok: false, code: 'not_found' });
    expect({ user: read('USER.md'), memory: read('MEMORY.md'), history: read('HISTORY.md') }).toEqual(after);
  });

  it('dismisses without touching a file, and the same line for the same file is never proposed again', () => {
    const { workspace, stores, proposals, propose, read } = setup();
    const [made] = propose();
    expect(proposals.dismiss(made!.id)).toMatchObject({ ok: true, proposal: { status: 'dismissed' } });
    expect(read('MEMORY.md')).toBe(MEMORY);
    expect(() => read('USER.md')).toThrow();
    expect(() => readFileSync(join(workspace, 'HISTORY.md'))).toThrow();
    expect(stores.fileVersions.list({ path: 'MEMORY.md' })).toEqual([]);
    expect(propose()).toEqual([]);
    expect(propose('- prefers SHORT answers!')).toEqual([]);
    expect(proposals.list()).toEqual([]);
    expect(proposals.dismiss(made!.id)).toMatchObject({ ok: false, code: 'refused' });
    // Another file is another proposal.
    expect(propose('- Prefers short answers.', 'AGENTS.md')).toHaveLength(1);
  });

  it('does not duplicate a fact the target file has already, and still removes it from MEMORY.md', async () => {
    const user = '# User\n\n- prefers short answers\n';
    const { workspace, proposals, propose, read } = setup({ 'USER.md': user });
    const [made] = propose();
    expect((await proposals.accept(workspace, made!.id)).ok).toBe(true);
    expect(read('USER.md')).toBe(user);
    expect(read('MEMORY.md')).toBe('# Memory\n\n- Ana is vegetarian.\n');
  });
});
