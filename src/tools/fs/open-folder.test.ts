import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolContext } from '../../../test/support/tool-context.js';
import { ToolError } from '../../agent/tool.js';
import { createFileTools } from '../file-tools.js';
import { descriptorPathsWork, openFolder } from './open-folder.js';
import { PathError } from './path-error.js';

let base: string;
let workspace: string;
const signal = new AbortController().signal;
const show = (path: string) => path.slice(workspace.length + 1) || '.';

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'wren-open-')));
  workspace = join(base, 'workspace');
  mkdirSync(workspace);
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

/**
 * A worker thread that keeps swapping `folder` between the real folder and a symlink to `target` (parking
 * the real one beside it), each state held for some system calls, until stopped. Runs truly in parallel with
 * the tools. A folder the tools create while `folder` is missing is moved aside to `<folder>.stray<N>`.
 */
const FLIPPER = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { folder, parked, target, control } = workerData;
const attempt = (step) => { try { step(); return true; } catch { return false; } };
const dwell = (calls) => { for (let i = 0; i < calls; i++) attempt(() => fs.lstatSync(folder)); };
let stray = 0;
while (Atomics.load(control, 0) === 0) {
  attempt(() => fs.renameSync(folder, parked));
  attempt(() => fs.symlinkSync(target, folder));
  dwell(20);
  attempt(() => fs.unlinkSync(folder));
  if (!attempt(() => fs.renameSync(parked, folder))) {
    attempt(() => fs.renameSync(folder, folder + '.stray' + stray++));
    attempt(() => fs.renameSync(parked, folder));
  }
  dwell(60);
  if (Atomics.add(control, 1, 1) === 0) parentPort.postMessage('flipping');
}
`;

/** Starts the flipper; resolves once it has swapped the folder back and forth at least once. */
async function startFlipper(folder: string, target: string) {
  const control = new Int32Array(new SharedArrayBuffer(8));
  const worker = new Worker(FLIPPER, {
    eval: true,
    workerData: { folder, parked: `${folder}.parked`, target, control },
  });
  await new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    async stop(): Promise<number> {
      Atomics.store(control, 0, 1);
      await new Promise((resolve) => worker.once('exit', resolve));
      return Atomics.load(control, 1);
    },
  };
}

/** Runs `count` calls, `parallel` at a time, and sorts them into results and errors. */
async function hammer<T>(count: number, parallel: number, call: (index: number) => Promise<T>) {
  const results: T[] = [];
  const errors: unknown[] = [];
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const index = next++;
      await call(index).then(
        (result) => results.push(result),
        (error) => errors.push(error),
      );
    }
  };
  await Promise.all(Array.from({ length: parallel }, lane));
  return { results, errors };
}

/** Every file under `folder` (recursively, not following symlinks). */
function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('a folder swapped for a symlink during file tool calls', () => {
  it('never lets write_file land outside the workspace (200 writes)', async () => {
    const outside = join(base, 'outside-w');
    mkdirSync(outside);
    mkdirSync(join(workspace, 'flip-w'));
    const [, write] = createFileTools({ roots: () => [workspace] });
    const flipper = await startFlipper(join(workspace, 'flip-w'), outside);
    const { results, errors } = await hammer(200, 4, (index) =>
      write!.execute(
        { path: 'flip-w/target.txt', content: `write ${index}\n` },
        toolContext({ workspace }),
        signal,
      ),
    );
    const flips = await flipper.stop();
    expect(flips).toBeGreaterThan(0);
    expect(readdirSync(outside)).toEqual([]);
    expect(results.length).toBeGreaterThan(0);
    for (const error of errors) expect(error, String((error as Error).stack)).toBeInstanceOf(ToolError);
    const written = filesUnder(workspace).filter((path) => path.endsWith('target.txt'));
    expect(written.length).toBeGreaterThan(0);
    for (const path of written) expect(readFileSync(path, 'utf8')).toMatch(/^write \d+\n$/);
  });

  it('never lets read_file read the outside file (200 reads)', async () => {
    const outside = join(base, 'outside-r');
    mkdirSync(outside);
    writeFileSync(join(outside, 'note.txt'), 'OUTSIDE SECRET\n');
    mkdirSync(join(workspace, 'flip-r'));
    writeFileSync(join(workspace, 'flip-r', 'note.txt'), 'inside note\n');
    const [read] = createFileTools({ roots: () => [workspace] });
    const flipper = await startFlipper(join(workspace, 'flip-r'), outside);
    const { results, errors } = await hammer(200, 4, () =>
      read!.execute({ path: 'flip-r/note.txt' }, toolContext({ workspace }), signal),
    );
    expect(await flipper.stop()).toBeGreaterThan(0);
    expect(results.length).toBeGreaterThan(0);
    for (const result of results) expect(result.content).toBe('inside note\n');
    for (const error of errors) expect(error, String((error as Error).stack)).toBeInstanceOf(ToolError);
  });
});

describe.each([
  ['by descriptor', true],
  ['by path (fallback)', false],
])('openFolder %s', (_label, viaDescriptor) => {
  it('opens a nested folder and names its entries', async () => {
    if (viaDescriptor) expect(await descriptorPathsWork()).toBe(true);
    mkdirSync(join(workspace, `a-${viaDescriptor}`, 'b'), { recursive: true });
    writeFileSync(join(workspace, `a-${viaDescriptor}`, 'b', 'c.txt'), 'c');
    const folder = await openFolder({
      root: workspace,
      folder: join(workspace, `a-${viaDescriptor}`, 'b'),
      show,
      viaDescriptor,
    });
    try {
      expect(folder.viaDescriptor).toBe(viaDescriptor);
      expect(readFileSync(folder.entry('c.txt'), 'utf8')).toBe('c');
      expect(readdirSync(folder.entry(''))).toEqual(['c.txt']);
    } finally {
      await folder.close();
    }
  });

  it('creates missing folders one at a time', async () => {
    const deep = join(workspace, `new-${viaDescriptor}`, 'x', 'y');
    const folder = await openFolder({ root: workspace, folder: deep, create: true, show, viaDescriptor });
    await folder.close();
    expect(existsSync(deep)).toBe(true);
  });

  it('refuses a folder of the path that is a symlink, even one pointing inside', async () => {
    const outside = mkdtempSync(join(base, 'elsewhere-'));
    symlinkSync(outside, join(workspace, `link-${viaDescriptor}`));
    const refusal = openFolder({
      root: workspace,
      folder: join(workspace, `link-${viaDescriptor}`, 'sub'),
      create: true,
      show,
      viaDescriptor,
    });
    await expect(refusal).rejects.toThrow(/became a symbolic link/);
    await expect(refusal).rejects.toMatchObject({ problem: 'link' });
    expect(readdirSync(outside)).toEqual([]);
  });

  it('names a missing folder and a file in the way', async () => {
    writeFileSync(join(workspace, `file-${viaDescriptor}`), '');
    await expect(
      openFolder({ root: workspace, folder: join(workspace, `none-${viaDescriptor}`), show, viaDescriptor }),
    ).rejects.toMatchObject({ problem: 'missing', message: `No folder at "none-${viaDescriptor}".` });
    const inTheWay = openFolder({
      root: workspace,
      folder: join(workspace, `file-${viaDescriptor}`, 'sub'),
      create: true,
      show,
      viaDescriptor,
    });
    await expect(inTheWay).rejects.toBeInstanceOf(PathError);
    await expect(inTheWay).rejects.toThrow(`"file-${viaDescriptor}" is a file, not a folder.`);
  });
});
