import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { normalizeFact } from '../../memory/memory-file.js';
import { MemoryProposalRepository } from '../../store/memory-proposal-repository.js';
import { openDatabase } from '../../store/open-database.js';
import { runMemoryDecide, runMemoryProposals } from './memory-proposals.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A home whose workspace's MEMORY.md holds two facts, with Dream's proposal to move the second to USER.md. */
function home() {
  const root = mkdtempSync(join(tmpdir(), 'wren-proposalcli-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const dir = join(root, 'home');
  const workspace = join(root, 'workspace');
  mkdirSync(dir, { mode: 0o700 });
  mkdirSync(workspace);
  writeFileSync(join(dir, 'config.yaml'), `workspace: ${workspace}\nagent:\n  timezone: UTC\n`, {
    mode: 0o600,
  });
  writeFileSync(join(workspace, 'MEMORY.md'), '# Memory\n\n- Ana is vegetarian.\n- Prefers short answers.\n');
  const db = openDatabase(join(dir, 'wren.db'));
  try {
    const text = '- Prefers short answers.';
    new MemoryProposalRepository(db).add([
      {
        file: 'USER.md',
        text,
        key: normalizeFact(text),
        reason: 'how the owner likes replies',
        dreamKey: 'tidy:1',
      },
    ]);
  } finally {
    db.close();
  }
  return { dir, workspace };
}

/** Buffers for what a command writes, and the deps to pass it. */
function io() {
  const out = { stdout: '', stderr: '' };
  const sink = (key: 'stdout' | 'stderr') => ({
    write: (text: string) => {
      out[key] += text;
      return true;
    },
  });
  return { out, deps: { io: { stdout: sink('stdout'), stderr: sink('stderr') } } };
}

describe('wren memory proposals|accept|dismiss', () => {
  it('lists a proposal with its file, line, reason and how to decide; accept moves the line', async () => {
    const { dir, workspace } = home();
    const listed = io();
    expect(await runMemoryProposals({ home: dir }, listed.deps)).toBe(0);
    expect(listed.out.stdout).toBe(
      '#1  MEMORY.md → USER.md  - Prefers short answers.\n    why: how the owner likes replies\n' +
        'Decide with: wren memory accept ID (moves the line) or wren memory dismiss ID (keeps it).\n',
    );
    const accepted = io();
    expect(await runMemoryDecide({ home: dir, id: '1', decision: 'accept' }, accepted.deps)).toBe(0);
    expect(accepted.out.stdout).toMatch(
      /^Accepted proposal 1: moved "- Prefers short answers." from MEMORY.md to USER.md/,
    );
    expect(readFileSync(join(workspace, 'USER.md'), 'utf8')).toBe('- Prefers short answers.\n');
    expect(readFileSync(join(workspace, 'MEMORY.md'), 'utf8')).toBe('# Memory\n\n- Ana is vegetarian.\n');

    const empty = io();
    expect(await runMemoryProposals({ home: dir }, empty.deps)).toBe(0);
    expect(empty.out.stdout).toMatch(/^No memory proposals wait for you/);
    const all = io();
    expect(await runMemoryProposals({ home: dir, all: true, json: true }, all.deps)).toBe(0);
    expect(JSON.parse(all.out.stdout)).toMatchObject({
      proposals: [{ id: 1, status: 'accepted', file: 'USER.md' }],
    });

    // Decided already: exit 1, the files as they are.
    const again = io();
    expect(await runMemoryDecide({ home: dir, id: '1', decision: 'dismiss' }, again.deps)).toBe(1);
    expect(again.out.stderr).toBe('wren: memory proposal 1 was accepted already\n');
    expect(readFileSync(join(workspace, 'USER.md'), 'utf8')).toBe('- Prefers short answers.\n');
  });

  it('dismisses without touching MEMORY.md; a second dismissal exits 1', async () => {
    const { dir, workspace } = home();
    const dismissed = io();
    expect(await runMemoryDecide({ home: dir, id: '1', decision: 'dismiss' }, dismissed.deps)).toBe(0);
    expect(dismissed.out.stdout).toBe(
      'Dismissed proposal 1: MEMORY.md keeps the line, and Dream will not propose it for USER.md again.\n',
    );
    expect(readFileSync(join(workspace, 'MEMORY.md'), 'utf8')).toContain('- Prefers short answers.');
    const listed = io();
    expect(await runMemoryProposals({ home: dir, all: true }, listed.deps)).toBe(0);
    expect(listed.out.stdout).toBe(
      '#1 [dismissed]  MEMORY.md → USER.md  - Prefers short answers.\n    why: how the owner likes replies\n',
    );
    expect(await runMemoryDecide({ home: dir, id: '1', decision: 'dismiss' }, io().deps)).toBe(1);
  });

  it('exits 1 for an unknown id and 2 for one that is not a positive number', async () => {
    const { dir } = home();
    const unknown = io();
    expect(await runMemoryDecide({ home: dir, id: '7', decision: 'accept' }, unknown.deps)).toBe(1);
    expect(unknown.out.stderr).toBe(
      'wren: there is no memory proposal 7; wren memory proposals lists them\n',
    );
    for (const id of ['abc', '0', '-1', '1.5', '']) {
      const bad = io();
      expect(await runMemoryDecide({ home: dir, id, decision: 'accept' }, bad.deps)).toBe(2);
      expect(bad.out.stderr).toBe(
        `wren: "${id}" is not a proposal id (a positive number; see wren memory proposals)\n`,
      );
    }
  });
});
