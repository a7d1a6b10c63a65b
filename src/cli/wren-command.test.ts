import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { wrenCommand } from './wren-command.js';

/** A clone-like folder: package.json, the ./wren shim and dist/cli/main.js. */
function clone(withShim = true) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'wren-clone-')));
  mkdirSync(join(root, 'dist', 'cli'), { recursive: true });
  writeFileSync(join(root, 'package.json'), '{}');
  writeFileSync(join(root, 'dist', 'cli', 'main.js'), '');
  if (withShim) writeFileSync(join(root, 'wren'), '#!/bin/sh\n');
  return { root, main: join(root, 'dist', 'cli', 'main.js') };
}

function binWith(target: string): string {
  const bin = mkdtempSync(join(tmpdir(), 'wren-bin-'));
  symlinkSync(target, join(bin, 'wren'));
  return bin;
}

describe('wrenCommand', () => {
  it('says wren when the wren on PATH is this CLI (npm link, or the shim linked there)', () => {
    const { root, main } = clone();
    expect(wrenCommand({ main, path: `/nowhere:${binWith(main)}`, cwd: '/' })).toBe('wren');
    expect(wrenCommand({ main, path: binWith(join(root, 'wren')), cwd: '/' })).toBe('wren');
  });

  it('in a clone without it on PATH, names the shim: ./wren inside, the full path elsewhere', () => {
    const { root, main } = clone();
    const other = clone();
    // Another Wren on PATH is not this one: suggesting it would run the wrong CLI.
    const path = `${binWith(other.main)}:`;
    expect(wrenCommand({ main, path, cwd: root })).toBe('./wren');
    expect(wrenCommand({ main, path, cwd: tmpdir() })).toBe(join(root, 'wren'));
    mkdirSync(join(root, 'docs'));
    expect(wrenCommand({ main, path: undefined, cwd: join(root, 'docs') })).toBe(join(root, 'wren'));
  });

  it('without a shim, the node command that runs this CLI (never npx)', () => {
    const { main } = clone(false);
    expect(wrenCommand({ main, path: '', cwd: '/' })).toBe(`node ${main}`);
  });
});
