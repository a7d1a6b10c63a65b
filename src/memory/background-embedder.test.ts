import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type FakeEmbeddingServer,
  startFakeEmbeddingServer,
} from '../../test/fakes/fake-embedding-server.js';
import type { EndpointConfig } from '../llm/endpoint.js';
import { EmbeddingRepository } from '../store/embedding-repository.js';
import { loadVectorExtension, openDatabase } from '../store/open-database.js';
import { SqliteSessionStore } from '../store/sqlite-session-store.js';
import { BackgroundEmbedder, type BackgroundEmbedderOptions } from './background-embedder.js';
import { formatHistoryEntry } from './history-file.js';

let dir: string;
let db: Database.Database;
let server: FakeEmbeddingServer;
let now: number;
const failures: Array<{ message: string; retryAt: number }> = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wren-embedder-'));
  db = openDatabase(join(dir, 'wren.db'));
  loadVectorExtension(db);
  server = await startFakeEmbeddingServer({ apiKey: 'sk-embed-secret-0123' });
  now = 1_000_000;
  failures.length = 0;
});
afterEach(async () => {
  await server.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function embedder(
  endpoint: () => EndpointConfig | undefined,
  extra: Partial<BackgroundEmbedderOptions> = {},
) {
  return new BackgroundEmbedder({
    repository: new EmbeddingRepository(db),
    endpoint,
    historyFile: () => join(dir, 'HISTORY.md'),
    clock: () => now,
    retry: { baseMs: 30_000, maxMs: 120_000 },
    onFailure: (error, retryAt) => failures.push({ message: error.message, retryAt }),
    ...extra,
  });
}

async function say(texts: string[]): Promise<void> {
  const store = new SqliteSessionStore(db);
  const session = await store.activeSession('cli:local', { channel: 'cli', chatId: 'local' });
  await store.appendMessages(
    session.id,
    texts.map((content) => ({ message: { role: 'user' as const, content }, tokens: 5 })),
  );
}

const sent = () => server.requests.map((request) => request.input.length);

describe('BackgroundEmbedder', () => {
  it('embeds N texts in ceil(N/64) requests and never sends a text twice', async () => {
    const endpoint = server.endpoint({ apiKey: 'sk-embed-secret-0123' });
    await say(Array.from({ length: 150 }, (_, index) => `fact number ${index}`));
    const usage: number[] = [];
    const worker = embedder(() => endpoint, { onUsage: (_name, tokens) => usage.push(tokens) });
    await worker.runIfDue();
    expect(sent()).toEqual([64, 64, 22]);
    expect(usage).toHaveLength(3);
    expect(server.requests.every((request) => request.model === 'fake-embed')).toBe(true);
    expect(new EmbeddingRepository(db).counts('fake-embed')).toEqual({ embedded: 150, waiting: 0 });

    // A second pass has nothing to send; a repeated text and a copy of an old one cost nothing either.
    await worker.runIfDue();
    await say(['fact number 3', 'fact number 3']);
    await worker.runIfDue();
    expect(sent()).toEqual([64, 64, 22]);
    await say(['a new fact', 'a new fact']);
    await worker.runIfDue();
    expect(server.requests.at(-1)!.input).toEqual(['a new fact']);
    expect(worker.status()).toMatchObject({ model: 'fake-embed', requests: 4, failures: 0 });

    // A fresh process (no memory of the last pass) re-uses what the database has.
    await embedder(() => endpoint).runIfDue();
    expect(server.requests).toHaveLength(4);
  });

  it('embeds HISTORY.md entries, once, and again only what an edit changed', async () => {
    const endpoint = server.endpoint({ apiKey: 'sk-embed-secret-0123' });
    const entry = (text: string, seq: number) =>
      formatHistoryEntry({
        stamp: '2026-03-01 10:00',
        sessionId: 'a'.repeat(36),
        fromSeq: seq,
        throughSeq: seq,
        text,
      });
    writeFileSync(join(dir, 'HISTORY.md'), `# History\n\n${entry('Talked about the dog.', 1)}`);
    const worker = embedder(() => endpoint);
    await worker.runIfDue();
    expect(server.requests.map((request) => request.input)).toEqual([
      [expect.stringContaining('Talked about the dog.')],
    ]);
    await worker.runIfDue();
    expect(server.requests).toHaveLength(1);
    writeFileSync(
      join(dir, 'HISTORY.md'),
      `# History\n\n${entry('Talked about the cat.', 1)}\n${entry('Booked a flight.', 2)}`,
    );
    await worker.runIfDue();
    expect(server.requests[1]!.input).toEqual([
      expect.stringContaining('Talked about the cat.'),
      expect.stringContaining('Booked a flight.'),
    ]);
    // The vector of the replaced entry is gone.
    expect(db.prepare('SELECT count(*) FROM embeddings').pluck().get()).toBe(2);
  });

  it('backs off after a failed request, keeps what it saved, and retries once the wait is over', async () => {
    const endpoint = server.endpoint({ apiKey: 'sk-embed-secret-0123' });
    await say(Array.from({ length: 70 }, (_, index) => `fact ${index}`));
    server.fail({ status: 503 });
    let recovered = 0;
    const worker = embedder(() => endpoint, { onRecovery: () => recovered++ });
    await worker.runIfDue();
    expect(sent()).toEqual([64]);
    expect(worker.available()).toBe(false);
    expect(worker.status()).toMatchObject({ failures: 1, retryAt: now + 30_000 });
    expect(failures[0]!.message).toMatch(/HTTP 503/);

    server.fail();
    await worker.runIfDue();
    expect(sent()).toEqual([64]); // still waiting
    now += 30_000;
    server.fail({ status: 500, times: 1 });
    await worker.runIfDue();
    expect(worker.status()).toMatchObject({ failures: 2, retryAt: now + 60_000 });
    now += 60_000;
    await worker.runIfDue();
    expect(sent()).toEqual([64, 64, 64, 6]);
    expect(worker.status()).toMatchObject({ failures: 0 });
    expect(worker.status().lastError).toBeUndefined();
    expect(worker.available()).toBe(true);
    expect(recovered).toBe(1);
  });

  it('waits at least what Retry-After asks, and a changed endpoint ends the wait', async () => {
    await say(['one fact']);
    server.fail({ status: 429, retryAfter: '600', times: 1 });
    let endpoint = server.endpoint({ apiKey: 'sk-embed-secret-0123' });
    const worker = embedder(() => endpoint);
    await worker.runIfDue();
    expect(worker.status().retryAt).toBe(now + 600_000);
    endpoint = { ...endpoint, model: 'fake-embed-2' };
    await worker.runIfDue();
    expect(server.requests.map((request) => request.model)).toEqual(['fake-embed', 'fake-embed-2']);
    expect(worker.status()).toMatchObject({ model: 'fake-embed-2', failures: 0 });
  });

  it('re-embeds everything when the embedding model changes', async () => {
    await say(['fact one', 'fact two']);
    let endpoint = server.endpoint({ apiKey: 'sk-embed-secret-0123' });
    const worker = embedder(() => endpoint);
    await worker.runIfDue();
    endpoint = { ...endpoint, model: 'better-embed' };
    await worker.runIfDue();
    expect(server.requests.map((request) => [request.model, request.input.length])).toEqual([
      ['fake-embed', 2],
      ['better-embed', 2],
    ]);
    expect(db.prepare('SELECT DISTINCT model FROM embeddings').pluck().all()).toEqual(['better-embed']);
  });

  it('never puts the api key in what it reports, and does nothing without an endpoint', async () => {
    await say(['one fact']);
    const idle = embedder(() => undefined);
    await idle.runIfDue();
    expect(server.requests).toHaveLength(0);
    expect(idle.available()).toBe(false);

    const wrong = server.endpoint({ apiKey: 'sk-wrong-key-98765' });
    const worker = embedder(() => wrong);
    await worker.runIfDue();
    expect(server.requests[0]!.apiKey).toBe('sk-wrong-key-98765');
    expect(failures[0]!.message).toMatch(/rejected the API key \(HTTP 401\)/);
    expect(JSON.stringify([failures, worker.status()])).not.toContain('sk-wrong-key-98765');
  });

  it('stops at close: a pass in flight is aborted and nothing runs after', async () => {
    await say(['one fact']);
    const endpoint = server.endpoint({ apiKey: 'sk-embed-secret-0123' });
    let release: () => void = () => {};
    let started: () => void = () => {};
    const inFlight = new Promise<void>((resolve) => {
      started = resolve;
    });
    const worker = embedder(() => endpoint, {
      embed: (_endpoint, texts, signal) =>
        new Promise((resolve, reject) => {
          release = () => resolve({ vectors: texts.map(() => [1, 0]), tokens: 0 });
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
          started();
        }),
    });
    const pass = worker.runIfDue();
    await inFlight;
    await worker.close();
    await pass;
    release();
    expect(worker.status()).toMatchObject({ failures: 0 });
    expect(failures).toEqual([]);
    await worker.runIfDue();
    expect(new EmbeddingRepository(db).counts('fake-embed').embedded).toBe(0);
  });
});
