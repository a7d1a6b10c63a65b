import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteSessionStore } from '../../src/store/sqlite-session-store.js';
import { openMemoryDatabase } from '../support/memory-kit.js';
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

let home: string;
afterEach(() => rmSync(dirname(home), { recursive: true, force: true }));

describe('wren memory / memo / task', () => {
  it('manages tasks with exit codes a script can rely on', async () => {
    home = makeHome('agent:\n  timezone: UTC\n');
    const added = await wren(
      home,
      'task',
      'add',
      'Buy',
      'milk',
      '--due',
      '2026-05-01',
      '--priority',
      'high',
      '--json',
    );
    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({
      id: 1,
      title: 'Buy milk',
      due: '2026-05-01',
      priority: 'high',
    });
    expect((await wren(home, 'task')).stdout).toBe('#1 [high] Buy milk (due 2026-05-01)\n');
    expect(await wren(home, 'task', 'done', '1')).toMatchObject({ code: 0, stdout: 'Done: task #1.\n' });
    expect(JSON.parse((await wren(home, 'task', 'list', '--all', '--json')).stdout)[0]).toMatchObject({
      status: 'done',
    });
    expect(await wren(home, 'task', 'done', '99')).toMatchObject({
      code: 1,
      stderr: 'wren: there is no task #99\n',
    });
    expect((await wren(home, 'task', 'done', 'x')).code).toBe(2);
    const badDue = await wren(home, 'task', 'add', 'x', '--due', 'tomorrow');
    expect(badDue.code).toBe(2);
    expect(badDue.stderr).toMatch(/Invalid due date "tomorrow": use YYYY-MM-DD/);
    expect((await wren(home, 'task', 'add', 'x', '--priority', 'urgent')).code).toBe(2);
    expect((await wren(home, 'task', 'delete', '1')).code).toBe(0);
  });

  it('keeps memos, searches conversations and shows MEMORY.md', async () => {
    home = makeHome('agent:\n  timezone: UTC\n');
    expect((await wren(home, 'memo', 'add', 'Door', 'code', 'is', '4711')).stdout).toBe('Saved memo #1.\n');
    const found = await wren(home, 'memo', 'search', 'door', '--json');
    expect(JSON.parse(found.stdout)).toMatchObject([{ id: 1, text: 'Door code is 4711' }]);
    expect((await wren(home, 'memo', 'search', 'window')).code).toBe(1);
    expect((await wren(home, 'memo')).stdout).toMatch(
      /^#1 \(\d{4}-\d{2}-\d{2} \d{2}:\d{2}\) Door code is 4711\n$/,
    );

    const db = openMemoryDatabase(join(home, 'wren.db'));
    const store = new SqliteSessionStore(db);
    const session = await store.activeSession('cli:local', { channel: 'cli', chatId: 'local' });
    await store.appendMessages(session.id, [
      { message: { role: 'user', content: 'My dentist is Dr. Molar.' }, tokens: 9 },
    ]);
    db.close();
    const search = await wren(home, 'memory', 'search', 'dentist', '--json');
    expect(search.code).toBe(0);
    expect(JSON.parse(search.stdout).messages[0]).toMatchObject({
      sessionId: session.id,
      seq: 1,
      role: 'user',
    });
    expect((await wren(home, 'memory', 'search', 'plumber')).code).toBe(1);
    expect((await wren(home, 'memory', 'search', 'x', '--since', 'May')).code).toBe(2);
    const shown = await wren(home, 'memory', 'show', '--json');
    expect(JSON.parse(shown.stdout)).toMatchObject({
      historyEntries: 0,
      consolidation: { failing: [], pending: 0 },
    });
    expect((await wren(home, 'memory', 'show')).stdout).toMatch(
      /MEMORY\.md is empty\)\n\nHISTORY\.md: 0 entries/,
    );
    mkdirSync(join(home, 'workspace'), { recursive: true });
    writeFileSync(join(home, 'workspace', 'MEMORY.md'), '# Memory\n- Has a dentist.\n');
    expect((await wren(home, 'memory', 'show')).stdout).toMatch(/^# Memory\n- Has a dentist\.\n/);
  });
});
