import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/open-database.js';
import { SqliteSessionStore } from '../../src/store/sqlite-session-store.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/append-turns.mjs', import.meta.url));
const ROLES = ['user', 'assistant', 'tool', 'assistant'];

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wren-crash-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the writer until it reports `turns` commits, then SIGKILLs it; resolves with the last count it saw. */
function runAndKill(path: string, sessionIds: string[], turns: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [FIXTURE, path, ...sessionIds], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let committed = 0;
    let stderr = '';
    let buffer = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      if (lines.length) committed = Number(lines.at(-1));
      if (committed >= turns && child.exitCode === null && !child.killed) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve(committed);
      else reject(new Error(`writer exited early (code ${code}): ${stderr}`));
    });
  });
}

describe('crash safety', () => {
  it('keeps whole turns and a sound database when the writer is killed with SIGKILL mid-write', async () => {
    const path = join(dir, 'wren.db');
    const setup = openDatabase(path);
    const setupStore = new SqliteSessionStore(setup);
    const sessionIds: string[] = [];
    for (const key of ['a', 'b', 'c'])
      sessionIds.push((await setupStore.activeSession(key, { channel: 't', chatId: key })).id);
    setup.close();

    const reported = await runAndKill(path, sessionIds, 150);
    expect(existsSync(`${path}-wal`)).toBe(true); // killed before any clean close: recovery has work to do

    const db = openDatabase(path); // runs quick_check; throws StoreError if damaged
    try {
      const rows = db
        .prepare(
          'SELECT session_id AS id, count(*) AS n, min(seq) AS first, max(seq) AS last FROM messages GROUP BY session_id',
        )
        .all() as Array<{ id: string; n: number; first: number; last: number }>;
      const total = rows.reduce((sum, row) => sum + row.n, 0);
      expect(total % 4).toBe(0);
      expect(total / 4).toBeGreaterThanOrEqual(reported);
      for (const row of rows) {
        expect(row.first).toBe(1);
        expect(row.last).toBe(row.n); // contiguous: no gaps
        expect(row.n % 4).toBe(0); // no half turn
        const roles = db
          .prepare('SELECT seq, role FROM messages WHERE session_id = ? ORDER BY seq')
          .all(row.id) as Array<{
          seq: number;
          role: string;
        }>;
        expect(roles.every((message) => message.role === ROLES[(message.seq - 1) % 4])).toBe(true);
      }
      const store = new SqliteSessionStore(db);
      const first = sessionIds[0]!;
      const before = rows.find((row) => row.id === first)?.n ?? 0;
      await store.appendMessages(first, [
        { message: { role: 'user', content: 'after the crash' }, tokens: 1 },
      ]);
      const [latest] = await store.recentMessages(first, 1);
      expect(latest?.seq).toBe(before + 1);
    } finally {
      db.close();
    }
  });
});
