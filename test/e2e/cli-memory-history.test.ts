import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, makeHome, runCli } from '../support/wren-home.js';

/** A home whose workspace holds MEMORY.md; `wren` runs against it. */
function home() {
  const dir = makeHome('agent:\n  timezone: UTC\n');
  const workspace = join(dir, 'workspace');
  mkdirSync(workspace, { recursive: true });
  const memory = join(workspace, 'MEMORY.md');
  const wren = (...args: string[]) => runCli(args, cliEnv(dir));
  return { memory, wren };
}

describe('wren memory log | diff | revert', () => {
  it('records an edit made on disk by the next read, diffs it and reverts it as a new version', async () => {
    const { memory, wren } = home();
    writeFileSync(memory, '# Memory\n- tea\n');
    const first = await wren('memory', 'log');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(
      /^#1 {2}\d{4}-\d\d-\d\d \d\d:\d\d {2}disk {12}MEMORY\.md {2}15 B {2}first seen\n$/,
    );
    writeFileSync(memory, '# Memory\n- coffee\n- Lisbon\n');
    const log = await wren('memory', 'log', 'MEMORY.md', '--json');
    const versions = JSON.parse(log.stdout) as Array<{ id: number; author: string; note: string }>;
    expect(versions.map(({ id, author, note }) => [id, author, note])).toEqual([
      [2, 'disk', 'changed on disk'],
      [1, 'disk', 'first seen'],
    ]);
    const diff = await wren('memory', 'diff', '2');
    expect(diff).toMatchObject({ code: 0, stderr: '' });
    expect(diff.stdout).toBe(
      '--- MEMORY.md #1\n+++ MEMORY.md #2\n@@ -1,2 +1,3 @@\n # Memory\n-- tea\n+- coffee\n+- Lisbon\n',
    );
    const reverted = await wren('memory', 'revert', '1');
    expect(reverted).toMatchObject({
      code: 0,
      stdout: 'Restored MEMORY.md to version #1 (now version #3).\n',
    });
    expect(readFileSync(memory, 'utf8')).toBe('# Memory\n- tea\n');
    expect((await wren('memory', 'log', '--limit', '1')).stdout).toContain(
      'revert          MEMORY.md  15 B  revert to #1',
    );
    expect((await wren('memory', 'diff', '1', '3')).stdout).toBe(
      'No change: #1 and #3 hold the same text.\n',
    );
  });

  it('exits 1 for an unknown version and 2 for bad input, saying why', async () => {
    const { memory, wren } = home();
    writeFileSync(memory, '# Memory\n');
    mkdirSync(join(memory, '..', 'skills', 'tea'), { recursive: true });
    writeFileSync(join(memory, '..', 'skills', 'tea', 'SKILL.md'), 'steep\n');
    expect((await wren('memory', 'log', 'skills/tea/SKILL.md')).stdout).toContain('#1 ');
    expect((await wren('memory', 'log')).stdout).toContain('#2 ');
    expect(await wren('memory', 'revert', '99')).toMatchObject({
      code: 1,
      stderr: 'wren: There is no version #99.\n',
    });
    expect((await wren('memory', 'diff', 'abc')).code).toBe(2);
    const notFile = await wren('memory', 'log', 'HISTORY.md');
    expect(notFile.code).toBe(2);
    expect(notFile.stderr).toContain('HISTORY.md has no history');
    const other = await wren('memory', 'diff', '1', '2');
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('is a version of');
  });
});
