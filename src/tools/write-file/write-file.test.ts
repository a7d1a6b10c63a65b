import {
  chmodSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolContext } from '../../../test/support/tool-context.js';
import type { ToolResult } from '../../agent/tool.js';
import { createFileTools } from '../file-tools.js';
import { writeFileAtomicAsync } from '../fs/atomic-write.js';

let base: string;
let workspace: string;
let outside: string;
const signal = new AbortController().signal;
const show = (path: string) => path.slice(workspace.length + 1);

function run(name: string, args: Record<string, unknown>): Promise<ToolResult> {
  const tool = createFileTools({ roots: () => [workspace] }).find((candidate) => candidate.name === name)!;
  return tool.execute(args, toolContext({ workspace }), signal);
}

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'wren-write-')));
  workspace = join(base, 'workspace');
  outside = join(base, 'outside');
  mkdirSync(join(workspace, 'notes'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, 'id_rsa'), 'PRIVATE KEY\n', { mode: 0o600 });
  writeFileSync(join(workspace, 'notes', 'real.md'), 'real\n');
  symlinkSync(join(workspace, 'notes', 'real.md'), join(workspace, 'alias.md'));
  symlinkSync(join(outside, 'id_rsa'), join(workspace, 'key-link'));
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('write_file and links', () => {
  it('refuses a final symlink pointing outside, and leaves its target alone', async () => {
    await expect(run('write_file', { path: 'key-link', content: 'x' })).rejects.toThrow(
      /outside the workspace/,
    );
    expect(readFileSync(join(outside, 'id_rsa'), 'utf8')).toBe('PRIVATE KEY\n');
  });

  it.each([
    ['by descriptor', true],
    ['by path (fallback)', false],
  ])(
    'refuses a final component that became a symlink after resolution (%s)',
    async (_label, viaDescriptor) => {
      const planted = join(workspace, `planted-${viaDescriptor}`);
      symlinkSync(join(outside, 'id_rsa'), planted);
      const write = writeFileAtomicAsync({
        root: workspace,
        path: planted,
        data: 'owned',
        show,
        viaDescriptor,
      });
      await expect(write).rejects.toMatchObject({ problem: 'link' });
      await expect(write).rejects.toThrow(/became a symbolic link after the path was checked/);
      expect(readFileSync(join(outside, 'id_rsa'), 'utf8')).toBe('PRIVATE KEY\n');
      expect(lstatSync(planted).isSymbolicLink()).toBe(true);
    },
  );

  it('writes through a symlink that stays inside the workspace, to its target', async () => {
    expect((await run('read_file', { path: 'alias.md' })).content).toBe('real\n');
    const result = await run('write_file', { path: 'alias.md', content: 'rewritten\n' });
    expect(result.content).toBe('Replaced notes/real.md (10 bytes).');
    expect(readFileSync(join(workspace, 'notes', 'real.md'), 'utf8')).toBe('rewritten\n');
    expect(lstatSync(join(workspace, 'alias.md')).isSymbolicLink()).toBe(true);
  });

  it('replaces a hard link to an outside file without touching that file', async () => {
    linkSync(join(outside, 'id_rsa'), join(workspace, 'hard.txt'));
    const result = await run('write_file', { path: 'hard.txt', content: 'mine\n' });
    expect(result.content).toBe('Replaced hard.txt (5 bytes).');
    expect(readFileSync(join(workspace, 'hard.txt'), 'utf8')).toBe('mine\n');
    expect(readFileSync(join(outside, 'id_rsa'), 'utf8')).toBe('PRIVATE KEY\n');
    expect(statSync(join(outside, 'id_rsa')).nlink).toBe(1);
  });

  it('creates folders, keeps the mode and leaves no temp file on the fallback too', async () => {
    const path = join(workspace, 'fallback', 'deep', 'run.sh');
    await expect(
      writeFileAtomicAsync({ root: workspace, path, data: 'echo 1\n', show, viaDescriptor: false }),
    ).resolves.toEqual({ created: true });
    chmodSync(path, 0o755);
    await expect(
      writeFileAtomicAsync({ root: workspace, path, data: 'echo 2\n', show, viaDescriptor: false }),
    ).resolves.toEqual({ created: false });
    expect(statSync(path).mode & 0o777).toBe(0o755);
    expect(readFileSync(path, 'utf8')).toBe('echo 2\n');
    expect(readdirSync(join(workspace, 'fallback', 'deep'))).toEqual(['run.sh']);
  });

  it('creates a workspace that does not exist yet', async () => {
    const fresh = join(base, 'fresh', 'workspace');
    const [, write] = createFileTools({ roots: () => [fresh] });
    const result = await write!.execute({ path: 'a/b.md', content: 'b' }, toolContext({ workspace }), signal);
    expect(result.content).toBe('Created a/b.md (1 bytes).');
    expect(readFileSync(join(fresh, 'a', 'b.md'), 'utf8')).toBe('b');
  });

  it('shows hidden characters in the path it echoes', async () => {
    const result = await run('write_file', { path: 'notes/report\u202Efdp.exe', content: 'x' });
    expect(result.content).toBe('Created notes/report<U+202E>fdp.exe (1 bytes).');
    expect(readFileSync(join(workspace, 'notes', 'report\u202Efdp.exe'), 'utf8')).toBe('x');
  });
});
