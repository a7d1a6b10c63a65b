import { readFileSync } from 'node:fs';
import { transformWithOxc } from 'vite';
import { describe, expect, it } from 'vitest';

/** What a file compiles to once types are erased, comments and blank lines dropped. */
async function runtimeCode(path: string): Promise<string> {
  const source = readFileSync(new URL(path, import.meta.url), 'utf8');
  const { code } = await transformWithOxc(source, path);
  return code
    .replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')
    .replace(/^\s*export\s*\{\s*\};?\s*$/gm, '')
    .trim();
}

describe('the shared API types', () => {
  it('are types only: the module compiles to nothing and imports nothing (no Node, no server code)', async () => {
    for (const file of [
      './api-types.ts',
      './api-types-memory.ts',
      './api-types-memory-proposals.ts',
      './api-types-settings.ts',
    ]) {
      expect(await runtimeCode(file)).toBe('');
      expect(readFileSync(new URL(file, import.meta.url), 'utf8')).not.toMatch(/^\s*import\b/m);
    }
  });

  it('reach the web app through a type-only re-export, so the bundle carries no server module', async () => {
    expect(await runtimeCode('../../web/src/types.ts')).toBe('');
  });
});
