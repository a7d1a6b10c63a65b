import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type FakeEmbeddingServer,
  startFakeEmbeddingServer,
} from '../../test/fakes/fake-embedding-server.js';
import { loadConfig } from '../config/load-config.js';
import type { WrenConfig } from '../config/wren-config.js';
import { searchMemory } from '../memory/memory-search.js';
import { openDatabase } from '../store/open-database.js';
import { openStores } from '../store/open-stores.js';
import { SqliteSessionStore } from '../store/sqlite-session-store.js';
import { wireSemanticSearch } from './wire-semantic-search.js';

let dir: string;
let db: Database.Database;
let server: FakeEmbeddingServer;
let logged: Array<{ level: string; message: string; fields: unknown }>;
const logger = {
  info: (fields: unknown, message?: string) =>
    void logged.push({ level: 'info', message: String(message ?? fields), fields }),
  warn: (fields: unknown, message?: string) =>
    void logged.push({ level: 'warn', message: String(message ?? fields), fields }),
} as unknown as Parameters<typeof wireSemanticSearch>[0]['logger'];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wren-wire-semantic-'));
  mkdirSync(join(dir, 'home'));
  db = openDatabase(join(dir, 'wren.db'));
  server = await startFakeEmbeddingServer();
  logged = [];
});
afterEach(async () => {
  await server.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function config(embedding: boolean): WrenConfig {
  const embed = `  - name: embed\n    protocol: openai\n    base_url: ${server.baseUrl}\n    api_key: sk-x-123456\n    model: fake-embed\n    tags: [embedding]\n`;
  writeFileSync(
    join(dir, 'home', 'config.yaml'),
    `agent:\n  timezone: UTC\nworkspace: ${dir}\nmodels:\n  - name: main\n    protocol: openai\n    base_url: http://127.0.0.1:9/v1\n    model: m\n${embedding ? embed : ''}`,
  );
  return loadConfig(join(dir, 'home'), {});
}

async function say(text: string): Promise<void> {
  const store = new SqliteSessionStore(db);
  const session = await store.activeSession('cli:local', { channel: 'cli', chatId: 'local' });
  await store.appendMessages(session.id, [{ message: { role: 'user', content: text }, tokens: 5 }]);
}

describe('wireSemanticSearch', () => {
  it('falls back to keyword search with one warning when sqlite-vec does not load', async () => {
    const current = config(true);
    let loads = 0;
    const semantic = wireSemanticSearch({
      stores: openStores(db),
      config: () => current,
      logger,
      loadVectors: () => {
        loads++;
        return { ok: false, reason: 'no vec0 for this platform' };
      },
    });
    await say('The violin teacher is Anna');
    for (const text of ['violin', 'what instrument does my kid play'])
      expect(await semantic.search({ text })).toEqual(
        searchMemory({ messages: openStores(db).messages, workspace: dir, timezone: 'UTC' }, { text }),
      );
    expect(semantic.status()).toEqual({
      mode: 'keywords',
      model: 'fake-embed',
      unavailable: 'sqlite-vec did not load: no vec0 for this platform',
    });
    expect(logged.filter((line) => line.level === 'warn').map((line) => line.message)).toEqual([
      'sqlite-vec could not load: memory search uses keywords only',
    ]);
    expect(loads).toBeGreaterThan(1);
    expect(server.requests).toEqual([]);
    await semantic.close();
  });

  it('does nothing and costs nothing without an embedding model, and follows a live edit that adds one', async () => {
    let current = config(false);
    let loads = 0;
    const semantic = wireSemanticSearch({
      stores: openStores(db),
      config: () => current,
      logger,
      loadVectors: () => {
        loads++;
        return { ok: true, version: 'test' };
      },
    });
    await say('The violin teacher is Anna');
    expect(await semantic.search({ text: 'violin' })).toEqual(
      searchMemory(
        { messages: openStores(db).messages, workspace: dir, timezone: 'UTC' },
        { text: 'violin' },
      ),
    );
    expect(semantic.status()).toEqual({ mode: 'keywords' });
    expect(loads).toBe(0);
    current = config(true);
    expect(semantic.status()).toMatchObject({ mode: 'hybrid', model: 'fake-embed', embedded: 0, waiting: 1 });
    await semantic.close();
    expect(logged).toEqual([]);
  });
});
