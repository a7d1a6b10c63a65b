import { readdirSync, readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * What src/shell may import: its own files, util/, the IP parser, `node:path` (posix string helpers) and
 * picomatch (glob matching on strings). Anything else could reach the disk, processes or the environment;
 * whatever needs those stays in tools/exec and is passed in (ExistingLinks).
 */
const ALLOWED = [
  /^\.\/[\w-]+\.js$/,
  /^\.\.\/util\/[\w-]+\.js$/,
  /^\.\.\/tools\/net\/ip-address\.js$/,
  /^node:path$/,
];
const PACKAGES = new Set(['picomatch']);

/** Why a module's source breaks the shell analyser's purity, one line per problem; empty when pure. */
function impurities(source: string): string[] {
  const problems: string[] = [];
  // preProcessFile finds static imports, re-exports, `import()` and `require()` alike, ignoring comments.
  for (const { fileName } of ts.preProcessFile(source, true, true).importedFiles) {
    if (!ALLOWED.some((allowed) => allowed.test(fileName)) && !PACKAGES.has(fileName))
      problems.push(`imports ${fileName}`);
  }
  // The global `process` as a value (`process.env`, `process['env']`, `globalThis.process`, `= process`),
  // not a property that happens to share the name (`value.process`, `{ process: false }`).
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && node.text === 'process') {
      const { parent } = node;
      const named = 'name' in parent && parent.name === node && !ts.isShorthandPropertyAssignment(parent);
      const global = ts.isPropertyAccessExpression(parent) && parent.expression.getText() === 'globalThis';
      if (!named || global) problems.push('reaches the process');
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile('probe.ts', source, ts.ScriptTarget.Latest, true));
  return problems;
}

describe('src/shell is pure', () => {
  it('imports nothing that reaches the disk, processes or the environment', () => {
    const folder = new URL('./', import.meta.url);
    const files = readdirSync(folder).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'));
    expect(files.length).toBeGreaterThan(40);
    const found = files.flatMap((name) =>
      impurities(readFileSync(new URL(name, folder), 'utf8')).map((problem) => `${name} ${problem}`),
    );
    expect(found).toEqual([]);
  });

  it('the check fires on I/O, however it is spelled', () => {
    expect(impurities("import { readFileSync } from 'node:fs';")).toEqual(['imports node:fs']);
    expect(impurities("import { spawn } from 'child_process';")).toEqual(['imports child_process']);
    expect(impurities("const { stat } = await import('node:fs/promises');")).toEqual([
      'imports node:fs/promises',
    ]);
    expect(impurities("export { run } from '../tools/exec/run-process.js';")).toEqual([
      'imports ../tools/exec/run-process.js',
    ]);
    expect(impurities('const home = process.env.HOME;')).toEqual(['reaches the process']);
    expect(impurities('const env = globalThis.process;')).toEqual(['reaches the process']);
    expect(impurities("const { env } = process;\nconst h = process['env'];")).toEqual([
      'reaches the process',
      'reaches the process',
    ]);
    expect(impurities('const context = { process };')).toEqual(['reaches the process']);
    // A word's `process` flag is not the global.
    expect(impurities('const v = { process: false };\nif (v.process) f();')).toEqual([]);
    expect(impurities("const fs = require('fs');")).toEqual(['imports fs']);
    // Named in a comment only: not an import.
    expect(impurities("// like import { x } from 'node:fs'\nexport const a = 1;")).toEqual([]);
    expect(impurities("import { posix } from 'node:path';\nimport x from './shell-paths.js';")).toEqual([]);
  });
});
