import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { secretValues } from '../../src/app/built-in-registry.js';
import { loadConfig } from '../../src/config/load-config.js';
import { createBackupService, restoreBackup } from '../../src/services/backup-service.js';
import { openStoresAt } from '../../src/store/open-stores.js';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { cliEnv, makeHome, type RunningWren, startWren } from '../support/wren-home.js';

const API_KEY = 'sk-e2e-model-key-0123456789';
const GATEWAY_TOKEN = 'gw-e2e-token-abcdef987654';
const TELEGRAM = '123456:e2e-telegram-secret-token';

const CONFIG = `
models:
  - name: fake
    protocol: openai
    base_url: \${FAKE_BASE}
    model: fake-model
    api_key: \${OPENAI_API_KEY}
gateway:
  token: \${GW_TOKEN}
gate:
  secrets:
    telegram_bot: \${TELEGRAM_TOKEN}
`;
const DOT_ENV = `OPENAI_API_KEY=${API_KEY}\nGW_TOKEN=${GATEWAY_TOKEN}\nTELEGRAM_TOKEN=${TELEGRAM}\n`;

let llm: FakeLlmServer;
const running: RunningWren[] = [];
beforeAll(async () => {
  llm = await startFakeLlmServer();
  llm.setHandler((request) => ({ text: `noted: ${request.lastUserText.slice(-20)}` }));
});
afterAll(() => llm.close());
afterEach(async () => {
  await Promise.all(running.splice(0).map((wren) => wren.stop()));
});

async function start(home: string) {
  const wren = await startWren(cliEnv(home, { FAKE_BASE: llm.baseUrls.openai }));
  running.push(wren);
  return wren;
}

function api(wren: RunningWren, path: string, body: unknown) {
  return fetch(`${wren.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${GATEWAY_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** Rows of the tables the write loop grows, read through a connection of its own. */
function counts(path: string): { messages: number; reminders: number; sessions: number } {
  const db = new Database(path, { readonly: true });
  try {
    const count = (table: string) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
    return { messages: count('messages'), reminders: count('reminders'), sessions: count('sessions') };
  } finally {
    db.close();
  }
}

/** Turns and reminders, one after another, until `stop()` is called; resolves with how many writes ran. */
function writeLoop(wren: RunningWren) {
  let stopped = false;
  const done = (async () => {
    let n = 0;
    while (!stopped) {
      n++;
      const turn = await api(wren, '/api/chat', { message: `turn ${n}`, session: `loop-${n % 3}` });
      expect(turn.status).toBe(200);
      const reminder = await api(wren, '/api/reminders', { text: `reminder ${n}`, when: 'in 3 days' });
      expect(reminder.status).toBeLessThan(300);
    }
    return n;
  })();
  // A failure is kept for stop() to report, not thrown into the void while the test still runs.
  const ended = done.then(
    (n) => ({ n }),
    (error: unknown) => ({ error }),
  );
  return {
    async stop() {
      stopped = true;
      const result = await ended;
      if ('error' in result) throw result.error;
      return result.n;
    },
  };
}

const configEnv = () => ({ FAKE_BASE: llm.baseUrls.openai });

function service(home: string) {
  const config = loadConfig(home, configEnv());
  const stores = openStoresAt(join(home, 'wren.db'));
  return {
    stores,
    backups: createBackupService({
      home,
      stores,
      config: () => config,
      secrets: () => secretValues(home, config, configEnv()),
      wrenVersion: 'e2e',
    }),
  };
}

describe('backup and restore around a running gateway', () => {
  it('backs up while the gateway writes; the archive restores to the moment of the backup, and starts', async () => {
    const home = makeHome(CONFIG, DOT_ENV);
    const wren = await start(home);
    const loop = writeLoop(wren);
    const db = join(home, 'wren.db');
    // Let the loop get going, then back up in the middle of it, from another process's connection.
    while (counts(db).messages < 6) await new Promise((resolve) => setTimeout(resolve, 50));
    const { stores, backups } = service(home);
    const before = counts(db);
    const made = await backups.create({});
    const after = counts(db);
    stores.close();
    const writes = await loop.stop();
    expect(made.ok).toBe(true);
    if (!made.ok) return;
    for (const table of ['messages', 'reminders', 'sessions'] as const) {
      expect(made.manifest.counts[table]).toBeGreaterThanOrEqual(before[table]);
      expect(made.manifest.counts[table]).toBeLessThanOrEqual(after[table]);
    }
    expect(counts(db).messages).toBeGreaterThan(made.manifest.counts['messages']!);

    // No configured secret anywhere in the decompressed archive; with --with-secrets, all of them.
    const secrets = [API_KEY, GATEWAY_TOKEN, TELEGRAM];
    expect(secretValues(home, loadConfig(home, configEnv()), {})).toEqual(expect.arrayContaining(secrets));
    const plain = gunzipSync(readFileSync(made.file)).toString('latin1');
    for (const secret of secrets) expect(plain).not.toContain(secret);
    const withSecrets = service(home);
    const secretArchive = await withSecrets.backups.create({ withSecrets: true });
    withSecrets.stores.close();
    expect(secretArchive.ok).toBe(true);
    if (!secretArchive.ok) return;
    const full = gunzipSync(readFileSync(secretArchive.file)).toString('latin1');
    for (const secret of secrets) expect(full).toContain(secret);
    expect(statSync(secretArchive.file).mode & 0o777).toBe(0o600);

    // Refused while the gateway holds the home; nothing changes.
    const busy = await restoreBackup(home, made.file);
    expect(busy).toMatchObject({ ok: false, code: 'busy' });
    if (!busy.ok) expect(busy.error).toMatch(/in use by Wren process \d+; stop it first/);
    await wren.stop();
    running.splice(running.indexOf(wren), 1);
    const grown = counts(db);

    const restored = await restoreBackup(home, made.file);
    expect(restored.ok).toBe(true);
    if (!restored.ok) return;
    expect(counts(db)).toEqual({
      messages: made.manifest.counts['messages'],
      reminders: made.manifest.counts['reminders'],
      sessions: made.manifest.counts['sessions'],
    });
    const check = new Database(db, { readonly: true });
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    check.close();
    expect(counts(join(restored.aside!, 'wren.db'))).toEqual(grown);
    expect(restored.carried).toContain('.env');
    expect(writes).toBeGreaterThan(0);

    const again = await start(home);
    expect((await fetch(`${again.url}/api/health`)).status).toBe(200);
    const turn = await api(again, '/api/chat', { message: 'after the restore' });
    expect(turn.status).toBe(200);
    expect(((await turn.json()) as { reply: string }).reply).toContain('noted');
  }, 120_000);
});
