import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type FakeEmbeddingServer,
  startFakeEmbeddingServer,
} from '../../test/fakes/fake-embedding-server.js';
import { embedTexts } from '../llm/embed-texts.js';
import type { EndpointConfig } from '../llm/endpoint.js';
import { EmbeddingRepository } from '../store/embedding-repository.js';
import { loadVectorExtension, openDatabase } from '../store/open-database.js';
import { openStores } from '../store/open-stores.js';
import { SqliteSessionStore } from '../store/sqlite-session-store.js';
import { BackgroundEmbedder } from './background-embedder.js';
import { formatHistoryEntry } from './history-file.js';
import { createHybridSearch } from './hybrid-search.js';
import { type MemorySearchQuery, searchMemory } from './memory-search.js';

const FACT = "The owner's daughter Mia studies violin at the conservatory";
const PARAPHRASE = 'what instrument does my kid play';

let dir: string;
let db: Database.Database;
let server: FakeEmbeddingServer;
let endpoint: EndpointConfig | undefined;
let queryErrors: unknown[];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wren-hybrid-'));
  db = openDatabase(join(dir, 'wren.db'));
  loadVectorExtension(db);
  server = await startFakeEmbeddingServer();
  endpoint = server.endpoint();
  queryErrors = [];
});
afterEach(async () => {
  await server.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

async function say(texts: string[], role: 'user' | 'assistant' = 'user', chatId = 'local'): Promise<void> {
  const store = new SqliteSessionStore(db);
  const session = await store.activeSession(`cli:${chatId}`, { channel: 'cli', chatId });
  await store.appendMessages(
    session.id,
    texts.map((content) => ({ message: { role, content }, tokens: 5 })),
  );
}

const embedAll = () =>
  new BackgroundEmbedder({
    repository: new EmbeddingRepository(db),
    endpoint: () => endpoint,
    historyFile: () => join(dir, 'HISTORY.md'),
  }).runIfDue();

function hybrid(available = () => true) {
  return createHybridSearch({
    stores: openStores(db),
    workspace: () => dir,
    timezone: () => 'UTC',
    endpoint: () => endpoint,
    minSimilarity: () => 0.2,
    available,
    onError: (error) => queryErrors.push(error),
  });
}

const keywords = (query: MemorySearchQuery) =>
  searchMemory({ messages: openStores(db).messages, workspace: dir, timezone: 'UTC' }, query);

describe('hybrid memory search', () => {
  it('finds by meaning the fact a keyword search misses', async () => {
    await say([FACT, "Book a table at Luigi's for pizza on Friday", 'Dentist appointment with Dr. Molar']);
    await embedAll();
    expect(keywords({ text: PARAPHRASE })).toEqual({ history: [], messages: [] });
    const found = await hybrid()({ text: PARAPHRASE });
    expect(found.messages).toHaveLength(1);
    expect(found.messages[0]).toMatchObject({ snippet: FACT, role: 'user', match: 'meaning', seq: 1 });
    expect(found.messages[0]!.when).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
    expect(queryErrors).toEqual([]);
    expect(server.requests.at(-1)!.input).toEqual([PARAPHRASE]);
  });

  it('ranks a message found both ways above those found one way (reciprocal rank fusion)', async () => {
    // A long message that names the violin once, among many other words: a keyword hit, far in meaning.
    const filler = Array.from(
      { length: 90 },
      (_, i) => `zz${String.fromCharCode(97 + (i % 26), 97 + Math.floor(i / 26))}`,
    );
    await say([`${filler.slice(0, 45).join(' ')} violin ${filler.slice(45).join(' ')}`]);
    await say(['My daughter practises the cello', 'The kid plays violin on Sundays', 'Dinner at eight']);
    await embedAll();
    const found = await hybrid()({ text: 'kid violin' });
    expect(found.messages.map((hit) => [hit.match, hit.snippet])).toEqual([
      ['both', 'The [kid] plays [violin] on Sundays'],
      ['meaning', 'My daughter practises the cello'],
      ['words', expect.stringContaining(' [violin] ')],
    ]);
    const limited = await hybrid()({ text: 'kid violin', limit: 1 });
    expect(limited.messages.map((hit) => hit.match)).toEqual(['both']);
  });

  it('answers by keywords right after a new fact, before its embedding exists', async () => {
    await say(['The dog is called Rex']);
    await embedAll();
    await say(['Mia plays the cello now']);
    const requestsBefore = server.requests.length;
    const found = await hybrid()({ text: 'cello' });
    expect(found.messages.map((hit) => [hit.snippet, hit.match])).toEqual([
      ['Mia plays the [cello] now', 'words'],
    ]);
    expect(server.requests.length).toBe(requestsBefore + 1); // the query only; the new fact waits for the embedder
  });

  it('falls back to keywords when the endpoint fails or is known to be failing', async () => {
    await say([FACT, 'The violin teacher is called Anna']);
    await embedAll();
    server.fail({ status: 503 });
    const failing = await hybrid()({ text: 'violin' });
    expect(failing).toEqual(keywords({ text: 'violin' }));
    expect(String(queryErrors[0])).toMatch(/HTTP 503/);
    const requests = server.requests.length;
    const skipped = await hybrid(() => false)({ text: 'violin' });
    expect(skipped).toEqual(keywords({ text: 'violin' }));
    expect(server.requests.length).toBe(requests); // no request while the embedder backs off
    expect((await hybrid(() => false)({ text: PARAPHRASE })).messages).toEqual([]);
  });

  it('is exactly the keyword search without an embedding model', async () => {
    await say([FACT, 'violin lessons on Monday']);
    writeFileSync(
      join(dir, 'HISTORY.md'),
      `# History\n\n${formatHistoryEntry({ stamp: '2026-03-01 10:00', sessionId: 'b'.repeat(36), fromSeq: 1, throughSeq: 2, text: 'Violin lessons were booked.' })}`,
    );
    endpoint = undefined;
    for (const query of [
      { text: 'violin' },
      { text: PARAPHRASE },
      { text: 'violin', limit: 1, since: '2020-01-01' },
    ])
      expect(await hybrid()(query)).toEqual(keywords(query));
    expect(server.requests).toEqual([]);
  });

  it('finds nothing for a query unlike everything stored, and keeps to the days asked for', async () => {
    await say([FACT]);
    await embedAll();
    expect(await hybrid()({ text: 'airport flight' })).toEqual({ history: [], messages: [] });
    expect((await hybrid()({ text: PARAPHRASE, until: '2000-01-01' })).messages).toEqual([]);
    expect((await hybrid()({ text: PARAPHRASE, since: '2000-01-01' })).messages).toHaveLength(1);
  });

  it('finds HISTORY.md entries by meaning as well', async () => {
    const entry = (text: string, seq: number, stamp: string) =>
      formatHistoryEntry({ stamp, sessionId: 'c'.repeat(36), fromSeq: seq, throughSeq: seq, text });
    writeFileSync(
      join(dir, 'HISTORY.md'),
      `# History\n\n${entry('Mia got into the conservatory for violin.', 1, '2026-02-01 09:00')}\n${entry('Planned the holiday trip.', 2, '2026-03-01 09:00')}`,
    );
    await embedAll();
    const found = await hybrid()({ text: PARAPHRASE });
    expect(found.history.map((hit) => [hit.date, hit.match, hit.score])).toEqual([
      ['2026-02-01', 'meaning', 0],
    ]);
    expect(found.history[0]!.excerpt).toContain('conservatory');
    expect((await hybrid()({ text: PARAPHRASE, since: '2026-02-02' })).history).toEqual([]);
    const both = await hybrid()({ text: 'violin' });
    expect(both.history.map((hit) => hit.match)).toEqual(['both']);
  });

  it('embeds the query with the real client against the endpoint (no keys in errors)', async () => {
    const result = await embedTexts(server.endpoint(), [PARAPHRASE]);
    expect(result.vectors[0]).toHaveLength(14);
    await expect(
      embedTexts(
        server.endpoint(),
        Array.from({ length: 65 }, () => 'x'),
      ),
    ).rejects.toThrow(/at most 64/);
  });
});
