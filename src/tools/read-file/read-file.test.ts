import { execFileSync } from 'node:child_process';
import {
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolContext } from '../../../test/support/tool-context.js';
import type { ToolResult } from '../../agent/tool.js';
import { createFileTools } from '../file-tools.js';
import { openFileForRead } from '../fs/open-file-for-read.js';

let base: string;
let workspace: string;
let outside: string;
const signal = new AbortController().signal;
const show = (path: string) => path.slice(workspace.length + 1);

function run(name: string, args: Record<string, unknown>, roots = () => [workspace]): Promise<ToolResult> {
  const tool = createFileTools({ roots }).find((candidate) => candidate.name === name)!;
  return tool.execute(args, toolContext({ workspace }), signal);
}

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'wren-read-')));
  workspace = join(base, 'workspace');
  outside = join(base, 'outside');
  mkdirSync(join(workspace, 'notes'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, 'id_rsa'), 'PRIVATE KEY\n');
  writeFileSync(join(workspace, 'notes', 'real.md'), 'real\n');
  symlinkSync(join(workspace, 'notes', 'real.md'), join(workspace, 'alias.md'));
  linkSync(join(outside, 'id_rsa'), join(workspace, 'x'));
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('read_file and links', () => {
  const HARD_LINKS =
    '"x" has 2 hard links; Wren reads only files with a single link, so a link cannot expose a file outside the workspace.';

  it('refuses a hard link to a file outside the workspace, saying why', async () => {
    await expect(run('read_file', { path: 'x' })).rejects.toThrow(HARD_LINKS);
  });

  it('refuses to edit through a hard link, and the outside file is unchanged', async () => {
    await expect(run('edit_file', { path: 'x', old_text: 'PRIVATE', new_text: 'PUBLIC' })).rejects.toThrow(
      HARD_LINKS,
    );
    expect(readFileSync(join(outside, 'id_rsa'), 'utf8')).toBe('PRIVATE KEY\n');
  });

  it('refuses a hard link in an extra root too (the rule is about the file, not the root)', async () => {
    await expect(
      run('read_file', { path: join(outside, 'id_rsa') }, () => [workspace, outside]),
    ).rejects.toThrow(/has 2 hard links/);
  });

  it('reads and edits through a symlink that stays inside the workspace', async () => {
    expect((await run('read_file', { path: 'alias.md' })).content).toBe('real\n');
    const edited = await run('edit_file', { path: 'alias.md', old_text: 'real', new_text: 'edited' });
    expect(edited.content).toBe('Edited notes/real.md: replaced 1 occurrence (first at line 1).');
    expect(readFileSync(join(workspace, 'notes', 'real.md'), 'utf8')).toBe('edited\n');
  });

  it.each([
    ['by descriptor', true],
    ['by path (fallback)', false],
  ])('refuses a final symlink planted after resolution (%s)', async (_label, viaDescriptor) => {
    const planted = join(workspace, `planted-${viaDescriptor}`);
    symlinkSync(join(outside, 'id_rsa'), planted);
    await expect(
      openFileForRead({ root: workspace, path: planted, show, viaDescriptor }),
    ).rejects.toMatchObject({
      problem: 'link',
    });
  });

  it.each([
    ['by descriptor', true],
    ['by path (fallback)', false],
  ])('opens a plain file and reports its fstat (%s)', async (_label, viaDescriptor) => {
    const opened = await openFileForRead({
      root: workspace,
      path: join(workspace, 'notes', 'real.md'),
      show,
      viaDescriptor,
    });
    try {
      expect(opened.info.nlink).toBe(1);
      expect((await opened.handle.readFile()).toString()).toMatch(/^(real|edited)\n$/);
    } finally {
      await opened.handle.close();
    }
  });

  it('refuses a FIFO without waiting for a writer', async () => {
    execFileSync('mkfifo', [join(workspace, 'pipe')]);
    await expect(run('read_file', { path: 'pipe' })).rejects.toThrow('"pipe" is not a regular file.');
  });

  it('shows hidden characters in the path it echoes', async () => {
    writeFileSync(join(workspace, 'log\u202Etxt.exe'), 'one\ntwo\nthree\n');
    const result = await run('read_file', { path: 'log\u202Etxt.exe', offset: 2, limit: 1 });
    expect(result.content).toBe('[log<U+202E>txt.exe: lines 2-2 of 4; continue with offset 3]\ntwo');
  });
});
