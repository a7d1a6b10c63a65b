import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { toolContext } from '../../test/support/tool-context.js';
import type { Tool, ToolContext } from '../agent/tool.js';
import { createFileTools } from './file-tools.js';

let workspace: string;
let outside: string;
let tools: Record<string, Tool>;
const ctx = (): ToolContext => toolContext({ workspace: workspace });
const signal = new AbortController().signal;
const run = (name: string, args: Record<string, unknown>) => tools[name]!.execute(args, ctx(), signal);

/** A minimal valid PDF with one line of text per page (correct xref offsets). */
function makePdf(pages: string[]): Buffer {
  const objects: string[] = [];
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = `<< /Type /Pages /Kids [${pages.map((_, i) => `${4 + i * 2} 0 R`).join(' ')}] /Count ${pages.length} >>`;
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
  pages.forEach((text, i) => {
    const stream = `BT /F1 12 Tf 72 720 Td (${text}) Tj ET`;
    objects[4 + i * 2] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + i * 2} 0 R >>`;
    objects[5 + i * 2] = `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`;
  });
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = out.length;
    out += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = out.length;
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  out += offsets
    .slice(1)
    .map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`)
    .join('');
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

beforeAll(() => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'wren-files-')));
  workspace = join(base, 'workspace');
  outside = join(base, 'outside');
  mkdirSync(join(workspace, 'notes'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, 'private.md'), 'private notes\n');
  writeFileSync(join(workspace, 'notes', 'todo.md'), 'alpha\nbeta\ngamma\nbeta\n');
  writeFileSync(join(workspace, 'report.pdf'), makePdf(['Quarterly results look good', 'Second page text']));
  writeFileSync(join(workspace, 'broken.pdf'), '%PDF-1.4\nthis is not really a pdf');
  symlinkSync(outside, join(workspace, 'out-link'));
  tools = Object.fromEntries(
    createFileTools({ roots: () => [workspace, outside] }).map((tool) => [tool.name, tool]),
  );
});

describe('createFileTools', () => {
  it('gives the four core file tools with their risk tiers', () => {
    expect(Object.values(tools).map((tool) => [tool.name, tool.risk, tool.core])).toEqual([
      ['read_file', 'safe', true],
      ['write_file', 'moderate', true],
      ['edit_file', 'moderate', true],
      ['list_dir', 'safe', true],
    ]);
  });
});

describe('write_file', () => {
  it('creates a file with its missing folders, then replaces it atomically', async () => {
    const created = await run('write_file', { path: 'deep/er/new.md', content: 'one\n' });
    expect(created.content).toBe('Created deep/er/new.md (4 bytes).');
    const replaced = await run('write_file', { path: 'deep/er/new.md', content: 'two\n' });
    expect(replaced.content).toBe('Replaced deep/er/new.md (4 bytes).');
    expect(readFileSync(join(workspace, 'deep/er/new.md'), 'utf8')).toBe('two\n');
    expect(readdirSync(join(workspace, 'deep/er'))).toEqual(['new.md']);
  });

  it('keeps the mode of a file it replaces', async () => {
    writeFileSync(join(workspace, 'run.sh'), 'echo 1\n', { mode: 0o755 });
    await run('write_file', { path: 'run.sh', content: 'echo 2\n' });
    expect(statSync(join(workspace, 'run.sh')).mode & 0o777).toBe(0o755);
  });

  it('refuses content over 5 MB, folders, escapes and links out', async () => {
    await expect(
      run('write_file', { path: 'big.txt', content: 'x'.repeat(5 * 1024 * 1024 + 1) }),
    ).rejects.toThrow(/at most 5242880 bytes \(5 MB\)/);
    expect(existsSync(join(workspace, 'big.txt'))).toBe(false);
    await expect(run('write_file', { path: 'notes', content: 'x' })).rejects.toThrow(/is a folder/);
    await expect(run('write_file', { path: '../escape.txt', content: 'x' })).rejects.toThrow(
      /outside the workspace/,
    );
    await expect(run('write_file', { path: 'notes/todo.md/x', content: 'x' })).rejects.toThrow(/is a file/);
    await expect(run('write_file', { path: '', content: 'x' })).rejects.toThrow(/path is empty/);
  });

  it('assesses the folder prefix as the grant target', async () => {
    expect(await tools['write_file']!.assess!({ path: 'notes/a.md', content: '' }, ctx())).toEqual({
      target: 'notes/',
      path: 'notes/a.md',
    });
    expect(await tools['write_file']!.assess!({ path: './x/../a.md', content: '' }, ctx())).toEqual({
      target: './',
      path: 'a.md',
    });
    expect(await tools['write_file']!.assess!({ path: '.git/hooks/pre-commit', content: '' }, ctx())).toEqual(
      {
        target: '.git/hooks/',
        path: '.git/hooks/pre-commit',
        signatures: ['writes a git hook (runs on git commands)'],
      },
    );
    // git's own files (a config can make the next `git status` run a program), and a `.git` pointer file.
    for (const path of ['.git/config', 'sub/.git'])
      expect((await tools['write_file']!.assess!({ path, content: '' }, ctx())).signatures).toEqual([
        `changes git's own files (${path})`,
      ]);
    expect(
      (await tools['write_file']!.assess!({ path: join(outside, 'x.md'), content: '' }, ctx())).signatures,
    ).toEqual(['writes outside the workspace']);
    expect(await tools['write_file']!.assess!({ path: '/etc/passwd', content: '' }, ctx())).toEqual({
      target: '/etc/passwd',
    });
  });
});

describe('edit_file', () => {
  it('replaces a unique match and says where', async () => {
    writeFileSync(join(workspace, 'e1.md'), 'one\ntwo\nthree\n');
    const result = await run('edit_file', { path: 'e1.md', old_text: 'two', new_text: '2' });
    expect(result.content).toBe('Edited e1.md: replaced 1 occurrence (first at line 2).');
    expect(readFileSync(join(workspace, 'e1.md'), 'utf8')).toBe('one\n2\nthree\n');
  });

  it('refuses an ambiguous match, listing the lines, unless replace_all', async () => {
    await expect(
      run('edit_file', { path: 'notes/todo.md', old_text: 'beta', new_text: 'B' }),
    ).rejects.toThrow(
      'old_text occurs 2 times in notes/todo.md (lines 2, 4); include more surrounding text to make it unique, or set replace_all.',
    );
    const all = await run('edit_file', {
      path: 'notes/todo.md',
      old_text: 'beta',
      new_text: 'B',
      replace_all: true,
    });
    expect(all.content).toBe('Edited notes/todo.md: replaced 2 occurrences (first at line 2).');
    expect(readFileSync(join(workspace, 'notes/todo.md'), 'utf8')).toBe('alpha\nB\ngamma\nB\n');
  });

  it('explains a missing match with the closest line or a whitespace hint', async () => {
    writeFileSync(join(workspace, 'e2.ts'), 'function main() {\n  return computeTotal(items);\n}\n');
    await expect(
      run('edit_file', { path: 'e2.ts', old_text: 'return computeTotals(item);', new_text: 'x' }),
    ).rejects.toThrow(
      'old_text was not found in e2.ts. The closest line is 2: "return computeTotal(items);".',
    );
    await expect(
      run('edit_file', {
        path: 'e2.ts',
        old_text: 'function main() {\nreturn computeTotal(items);',
        new_text: 'x',
      }),
    ).rejects.toThrow(/different whitespace or line breaks/);
    await expect(run('edit_file', { path: 'e2.ts', old_text: 'zzzz qqqq', new_text: 'x' })).rejects.toThrow(
      /No line is close/,
    );
  });

  it('keeps CRLF files CRLF', async () => {
    writeFileSync(join(workspace, 'crlf.txt'), 'a\r\nb\r\nc\r\n');
    await run('edit_file', { path: 'crlf.txt', old_text: 'a\nb', new_text: 'A\nB' });
    expect(readFileSync(join(workspace, 'crlf.txt'), 'utf8')).toBe('A\r\nB\r\nc\r\n');
  });

  it('refuses bad requests with what to do instead', async () => {
    await expect(run('edit_file', { path: 'none.md', old_text: 'a', new_text: 'b' })).rejects.toThrow(
      /No file at "none.md"; to create one use write_file/,
    );
    await expect(run('edit_file', { path: 'e1.md', old_text: '', new_text: 'b' })).rejects.toThrow(
      /old_text is empty/,
    );
    await expect(run('edit_file', { path: 'e1.md', old_text: 'one', new_text: 'one' })).rejects.toThrow(
      /the same/,
    );
    writeFileSync(join(workspace, 'bin.dat'), Buffer.from([0, 1, 2]));
    await expect(run('edit_file', { path: 'bin.dat', old_text: 'a', new_text: 'b' })).rejects.toThrow(
      /binary/,
    );
    await expect(run('edit_file', { path: '../x', old_text: 'a', new_text: 'b' })).rejects.toThrow(/outside/);
  });
});

describe('read_file extensions', () => {
  it('reads a PDF as text, page by page', async () => {
    const result = await run('read_file', { path: 'report.pdf' });
    expect(result.content).toBe('[page 1]\nQuarterly results look good\n\n[page 2]\nSecond page text');
  });

  it('says clearly when a PDF cannot be read', async () => {
    await expect(run('read_file', { path: 'broken.pdf' })).rejects.toThrow(/PDF could not be read as text/);
  });

  it('reads an extra root and marks the result private; a link into it too', async () => {
    const direct = await run('read_file', { path: join(outside, 'private.md') });
    expect(direct).toMatchObject({ content: 'private notes\n', taint: 'private' });
    const linked = await run('read_file', { path: 'out-link/private.md' });
    expect(linked.taint).toBe('private');
    const own = await run('read_file', { path: 'notes/todo.md' });
    expect(own.taint).toBeUndefined();
  });

  it('refuses device files even inside an allowed root', async () => {
    const [read] = createFileTools({ roots: () => [workspace, '/'] });
    await expect(read!.execute({ path: '/dev/zero' }, ctx(), signal)).rejects.toThrow(
      /device or kernel file/,
    );
    await expect(read!.execute({ path: '/proc/self/environ' }, ctx(), signal)).rejects.toThrow(
      /device or kernel file/,
    );
  });

  it('cuts a 1 GB file at its cap with a note, and memory stays bounded', async () => {
    const path = join(workspace, 'huge.log');
    writeFileSync(path, Array.from({ length: 200_000 }, (_, i) => `log line ${i + 1}`).join('\n'));
    execFileSync('truncate', ['-s', '1G', path]);
    expect(statSync(path).size).toBe(1024 ** 3);
    const before = process.memoryUsage().rss;
    const result = await run('read_file', { path: 'huge.log' });
    const growth = process.memoryUsage().rss - before;
    expect(growth).toBeLessThan(200 * 1024 * 1024);
    expect(result.content.length).toBeLessThanOrEqual(128_200);
    expect(result.content).toMatch(
      /^\[huge\.log: lines 1-\d+ of \d+\+; continue with offset \d+\]\nlog line 1\n/,
    );
  });
});

describe('writes to the files that shape Wren', () => {
  it('carry a signature, so the gate always asks', async () => {
    const { assessFileWrite } = await import('./write-file/write-file.js');
    const { mkdtempSync, realpathSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'wren-instr-')));
    for (const path of ['SOUL.md', 'AGENTS.md', 'USER.md', 'MEMORY.md', 'skills/x/SKILL.md']) {
      expect((await assessFileWrite([root], path)).signatures, path).toEqual([
        `changes Wren's own instructions (${path})`,
      ]);
    }
    expect((await assessFileWrite([root], 'notes/SOUL.md')).signatures).toBeUndefined();
  });
});
