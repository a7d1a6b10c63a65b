import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { toolContext } from '../../test/support/tool-context.js';
import type { ToolContext } from '../agent/tool.js';
import { resolveWorkspacePath } from './fs/workspace-path.js';
import { createListDirTool } from './list-dir/list-dir.js';
import { createReadFileTool } from './read-file/read-file.js';

let workspace: string;
let outside: string;
const ctx = (): ToolContext => toolContext({ workspace: workspace });
const signal = new AbortController().signal;

beforeAll(() => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'wren-tools-')));
  workspace = join(base, 'workspace');
  outside = join(base, 'outside');
  mkdirSync(join(workspace, 'notes'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), 'top secret');
  writeFileSync(join(workspace, 'notes', 'todo.md'), 'line 1\nline 2\nline 3\n');
  writeFileSync(join(workspace, 'blob.bin'), Buffer.from([1, 2, 0, 3, 4]));
  writeFileSync(
    join(workspace, 'long.txt'),
    Array.from({ length: 50_000 }, (_, i) => `row ${i + 1} ${'x'.repeat(10)}`).join('\n'),
  );
  writeFileSync(join(workspace, 'minified.json'), `{"a":"${'q'.repeat(300_000)}"}\nsecond line`);
  symlinkSync(join(outside, 'secret.txt'), join(workspace, 'link-out'));
  symlinkSync(outside, join(workspace, 'dir-out'));
  symlinkSync(join(workspace, 'notes', 'todo.md'), join(workspace, 'link-in'));
  symlinkSync(join(outside, 'does-not-exist.txt'), join(workspace, 'dangling-out'));
  symlinkSync(join(outside, 'missing-dir'), join(workspace, 'dangling-dir'));
  symlinkSync(join(workspace, 'loop-b'), join(workspace, 'loop-a'));
  symlinkSync(join(workspace, 'loop-a'), join(workspace, 'loop-b'));
  for (let i = 0; i < 520; i++)
    writeFileSync(join(workspace, 'notes', `n${String(i).padStart(3, '0')}.md`), '');
});

describe('resolveWorkspacePath', () => {
  const REFUSED =
    /outside the workspace|not allowed|NUL|longer than|device or kernel|loop of symbolic|Too many/;
  /** Paths that must be refused (workspace only). */
  const escapes = () => [
    '..',
    '../',
    '../..',
    './..',
    '../outside/secret.txt',
    'notes/../../outside/secret.txt',
    'notes/../../../../../../etc/passwd',
    '/',
    '/etc',
    '/etc/passwd',
    '/tmp',
    join(outside, 'secret.txt'),
    join(workspace, '..', 'outside', 'secret.txt'),
    '~',
    '~/',
    '~/.ssh/id_rsa',
    '~root',
    'link-out',
    'link-out/',
    'dir-out',
    'dir-out/secret.txt',
    'dir-out/new-file.txt',
    'dangling-out',
    'dangling-dir/new.txt',
    'notes/../dangling-out',
    'loop-a/x',
    '/proc/self/environ',
    '/proc/1/cmdline',
    '/sys/kernel',
    '/dev/zero',
    '/dev/null',
    'notes\0.md',
    '\0',
    'notes/todo.md\0.txt',
    `${'a/'.repeat(3000)}x`,
  ];
  it('refuses every escape (table)', async () => {
    for (const path of escapes()) {
      await expect(
        resolveWorkspacePath([workspace], path),
        JSON.stringify(path.slice(0, 40)),
      ).rejects.toThrow(REFUSED);
    }
  });

  /** [requested, expected path relative to the workspace]. */
  const inside = (): Array<[string, string]> => [
    ['notes/todo.md', 'notes/todo.md'],
    ['./notes/todo.md', 'notes/todo.md'],
    ['notes//todo.md', 'notes/todo.md'],
    ['notes/./todo.md', 'notes/todo.md'],
    ['notes/../notes/todo.md', 'notes/todo.md'],
    ['notes/', 'notes'],
    ['link-in', 'notes/todo.md'],
    ['.', ''],
    ['', ''],
    ['new.md', 'new.md'],
    ['new/dir/file.md', 'new/dir/file.md'],
    [join(workspace, 'notes', 'todo.md'), 'notes/todo.md'],
    [join(workspace, 'new.md'), 'new.md'],
    ['dir-out/..', ''],
    ['weird name with spaces.md', 'weird name with spaces.md'],
    ['ünïcode.md', 'ünïcode.md'],
    ['-dash.md', '-dash.md'],
    ['.hidden', '.hidden'],
    ['..foo', '..foo'],
    ['foo..', 'foo..'],
    ['...', '...'],
  ];
  it('accepts paths inside, including links that stay inside and files not yet created (table)', async () => {
    for (const [requested, expected] of inside()) {
      await expect(resolveWorkspacePath([workspace], requested), requested).resolves.toBe(
        join(workspace, expected),
      );
    }
  });

  it('counts at least 40 path cases', () => {
    expect(escapes().length + inside().length).toBeGreaterThanOrEqual(40);
  });

  it('refuses a loop of links with a clear message', async () => {
    await expect(resolveWorkspacePath([workspace], 'loop-a/x')).rejects.toThrow(
      /loop of symbolic links|Too many/,
    );
  });

  it('accepts an extra root, but never devices or /proc even when a root contains them', async () => {
    await expect(resolveWorkspacePath([workspace, outside], join(outside, 'secret.txt'))).resolves.toBe(
      join(outside, 'secret.txt'),
    );
    for (const path of ['/proc/self/environ', '/dev/zero', '/sys/kernel']) {
      await expect(resolveWorkspacePath([workspace, '/'], path)).rejects.toThrow(/device or kernel file/);
    }
    await expect(resolveWorkspacePath([workspace, '/'], '/etc/hostname')).resolves.toBe('/etc/hostname');
  });
});

describe('read_file', () => {
  const tool = () => createReadFileTool(() => [workspace]);

  it('reads a text file', async () => {
    const result = await tool().execute({ path: 'notes/todo.md' }, ctx(), signal);
    expect(result.content).toBe('line 1\nline 2\nline 3\n');
  });

  it('pages by lines', async () => {
    const result = await tool().execute({ path: 'notes/todo.md', offset: 2, limit: 1 }, ctx(), signal);
    expect(result.content).toBe('[notes/todo.md: lines 2-2 of 4; continue with offset 3]\nline 2');
  });

  it('caps a long file and says where to continue', async () => {
    const result = await tool().execute({ path: 'long.txt' }, ctx(), signal);
    expect(result.content.length).toBeLessThanOrEqual(128_200);
    expect(result.content).toMatch(/^\[long.txt: lines 1-\d+ of 50000; continue with offset \d+\]/);
  });

  it('pages a single line longer than the cap by characters', async () => {
    const first = await tool().execute({ path: 'minified.json' }, ctx(), signal);
    expect(first.content).toMatch(
      /^\[minified.json: line 1 is 300008 characters; showing characters 1-128000; continue with offset 1 and char_offset 128001\]\n\{"a":"q/,
    );
    const next = await tool().execute(
      { path: 'minified.json', offset: 1, char_offset: 256001 },
      ctx(),
      signal,
    );
    expect(next.content).toMatch(/showing characters 256001-300008\]\nq+"\}$/);
    const second = await tool().execute({ path: 'minified.json', offset: 2 }, ctx(), signal);
    expect(second.content).toBe('[minified.json: lines 2-2 of 2]\nsecond line');
  });

  it('describes binary files instead of dumping them', async () => {
    const result = await tool().execute({ path: 'blob.bin' }, ctx(), signal);
    expect(result.content).toBe('blob.bin is a binary file (5 bytes); it cannot be shown as text.');
  });

  it('refuses a symlink out and a missing file clearly', async () => {
    await expect(tool().execute({ path: 'link-out' }, ctx(), signal)).rejects.toThrow(
      /outside the workspace/,
    );
    await expect(tool().execute({ path: 'nope.md' }, ctx(), signal)).rejects.toThrow('No file at "nope.md".');
    await expect(tool().execute({ path: 'notes' }, ctx(), signal)).rejects.toThrow(
      /is a folder; use list_dir/,
    );
  });
});

describe('list_dir', () => {
  const tool = () => createListDirTool(() => [workspace]);

  it('lists folders first, files with sizes', async () => {
    const result = await tool().execute({}, ctx(), signal);
    const lines = result.content.split('\n');
    expect(lines[0]).toBe('.: 11 entries');
    expect(lines[1]).toBe('notes/');
    expect(lines).toContain('blob.bin  5 B');
  });

  it('caps at 500 entries', async () => {
    const result = await tool().execute({ path: 'notes' }, ctx(), signal);
    expect(result.content.split('\n')).toHaveLength(1 + 500 + 1);
    expect(result.content).toMatch(/\[21 more entries not shown\]$/);
  });

  it('refuses paths outside', async () => {
    await expect(tool().execute({ path: '..' }, ctx(), signal)).rejects.toThrow(/outside the workspace/);
  });
});
