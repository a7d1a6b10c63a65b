import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ContextBuilder } from './context-builder.js';
import { ensureWorkspaceFiles } from './workspace-files.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function builder(names: string[]) {
  const workspace = mkdtempSync(join(tmpdir(), 'wren-context-'));
  dirs.push(workspace);
  ensureWorkspaceFiles(workspace);
  return new ContextBuilder({ workspace, timezone: 'UTC', vaultNames: () => names });
}

const text = (blocks: ReturnType<ContextBuilder['system']>) => blocks.map((block) => block.text).join('\n');

describe('the vault in the prompt', () => {
  it('names the owner’s secrets and where they may go, in the stable block, never for a guest', () => {
    const context = builder(['GITHUB_TOKEN (hosts api.github.com)', 'DB_PASSWORD (programs psql)']);
    const owner = context.system();
    expect(owner[0]!.text).toContain(
      '<vault>\nSecrets you can put in exec env, web_fetch headers or URL, and MCP arguments as {{vault:NAME}}; you never see their values: GITHUB_TOKEN (hosts api.github.com), DB_PASSWORD (programs psql)\n</vault>',
    );
    expect(owner[0]!.cache).toBe(true);
    expect(text(context.system({ guest: true }))).not.toContain('GITHUB_TOKEN');
  });

  it('adds nothing when the vault is empty', () => {
    expect(text(builder([]).system())).not.toContain('vault');
  });
});
