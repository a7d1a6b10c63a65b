import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryTidy } from '../../src/memory/tidy/memory-tidy.js';
import { openStores } from '../../src/store/open-stores.js';
import { openMemoryDatabase, testMemoryConfig } from '../support/memory-kit.js';
import { ScriptedModel } from '../support/scripted-model.js';
import { cliEnv, makeHome } from '../support/wren-home.js';

const CLI = fileURLToPath(new URL('./fixtures/memory-cli.ts', import.meta.url));

function wren(
  home: string,
  ...args: string[]
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { env: cliEnv(home) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const BEFORE =
  '# Memory\n\n- Has a dog named Rex.\n- Lives in Berlin.\n- Rex is a golden retriever.\n- Lives in Munich now.\n';
const TIDIED = '# Memory\n\n- Has a dog named Rex, a golden retriever.\n- Lives in Munich now.\n';

/** A tidy of the home's MEMORY.md, as `wren start` would run it at the slot `at`. */
async function tidyNow(home: string, at: string, answer: string): Promise<void> {
  const db = openMemoryDatabase(join(home, 'wren.db'));
  try {
    const model = new ScriptedModel().script({
      toolCalls: [{ name: 'save_tidy', arguments: { memory_md: answer } }],
    });
    const tidy = new MemoryTidy({
      stores: openStores(db),
      model,
      workspace: () => join(home, 'workspace'),
      config: () => testMemoryConfig(),
      timezone: () => 'UTC',
      clock: () => Date.parse(at),
    });
    expect((await tidy.run(`tidy:${at}`)).status).toBe('tidied');
  } finally {
    db.close();
  }
}

let home: string;
afterEach(() => rmSync(dirname(home), { recursive: true, force: true }));

/** A home whose MEMORY.md a tidy of 2026-06-02 03:00 (UTC) changed from BEFORE to TIDIED. */
async function tidiedHome() {
  home = makeHome('agent:\n  timezone: UTC\n');
  mkdirSync(join(home, 'workspace'), { recursive: true });
  writeFileSync(join(home, 'workspace', 'MEMORY.md'), BEFORE);
  await tidyNow(home, '2026-06-02T03:00:00.000Z', TIDIED);
  const memory = join(home, 'workspace', 'MEMORY.md');
  const history = () => readFileSync(join(home, 'workspace', 'HISTORY.md'), 'utf8');
  return { memory, history };
}

// Each `wren` here is a fresh Node process loading TypeScript through tsx: allow for a slow machine.
const SLOW = 60_000;

describe('wren memory undo-tidy', () => {
  it('says so when there is nothing to undo', { timeout: SLOW }, async () => {
    home = makeHome('agent:\n  timezone: UTC\n');
    expect(await wren(home, 'memory', 'undo-tidy')).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'wren: there is no memory tidy to undo: none has changed MEMORY.md yet (memory.dream in config.yaml schedules it)\n',
    });
  });

  it('restores MEMORY.md as it was before the tidy, once, and records the undo', {
    timeout: SLOW,
  }, async () => {
    const { memory, history } = await tidiedHome();
    expect(readFileSync(memory, 'utf8')).toBe(TIDIED);
    expect(await wren(home, 'memory', 'undo-tidy')).toEqual({
      code: 0,
      stdout:
        'Restored MEMORY.md as it was before the memory tidy of 2026-06-02 03:00; the undo is recorded in HISTORY.md.\n',
      stderr: '',
    });
    expect(readFileSync(memory, 'utf8')).toBe(BEFORE);
    expect(statSync(memory).mode & 0o777).toBe(0o600);
    expect(history()).toContain(
      '· memory tidy undone\n<!-- wren:tidy-undo key=tidy:2026-06-02T03:00:00.000Z -->',
    );
    expect(await wren(home, 'memory', 'undo-tidy')).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('the memory tidy of 2026-06-02 03:00 was undone already'),
    });
  });

  it('refuses after a hand edit, and restores with --force', { timeout: SLOW }, async () => {
    const { memory, history } = await tidiedHome();
    const edited = `${TIDIED}- Plays chess on Sundays.\n`;
    writeFileSync(memory, edited);
    const refused = await wren(home, 'memory', 'undo-tidy');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'wren: MEMORY.md changed since the memory tidy of 2026-06-02 03:00 (edited by hand or by Wren); undoing the tidy would throw that change away. Run `wren memory undo-tidy --force` to restore MEMORY.md as it was before the tidy anyway.\n',
    );
    expect(readFileSync(memory, 'utf8')).toBe(edited);
    const forced = await wren(home, 'memory', 'undo-tidy', '--force', '--json');
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout)).toEqual({
      tidiedAt: '2026-06-02 03:00',
      forced: true,
      merged: 1,
      removed: 1,
    });
    expect(readFileSync(memory, 'utf8')).toBe(BEFORE);
    expect(history()).toContain('with --force');
  });

  it('is listed in the help', { timeout: SLOW }, async () => {
    home = makeHome('{}\n');
    const help = await wren(home, 'memory', '--help');
    expect(help.stdout).toMatch(
      /undo-tidy \[options\]\s+put MEMORY\.md back as it was before the last\s+memory tidy/,
    );
  });
});
