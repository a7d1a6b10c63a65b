import { linkSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonSender, routeHarness } from '../../test/support/route-harness.js';
import { formatHistoryEntry, HISTORY_HEADER } from '../memory/history-file.js';
import { createMemoryFileService, MAX_MEMORY_FILE_BYTES } from '../services/memory-file-service.js';
import { contentHash } from '../store/file-version-repository.js';
import { openStores } from '../store/open-stores.js';
import { SqliteSessionStore } from '../store/sqlite-session-store.js';
import { memoryRoutes } from './memory-routes.js';

const harness = routeHarness();

type Body = Record<string, unknown> & { error?: { code: string; message: string } };

function setup() {
  const { dir, db } = harness.database('wren-memapi-');
  const workspace = join(dir, 'workspace');
  mkdirSync(workspace);
  const outside = join(dir, 'outside');
  mkdirSync(outside);
  const edits: Array<{ name: string; size: number }> = [];
  const stores = openStores(db);
  const app = memoryRoutes({
    workspace: () => workspace,
    files: createMemoryFileService(stores, {
      now: Date.now,
      timezone: () => 'UTC',
      defaultTargets: () => [],
    }),
    messages: stores.messages,
    timezone: () => 'UTC',
    onEdit: (edit) => edits.push(edit),
  });
  const send = jsonSender<Body>(app);
  return { workspace, outside, db, send, edits };
}

function historyFile(count: number): string {
  let text = HISTORY_HEADER;
  for (let index = 1; index <= count; index++) {
    text += `\n${formatHistoryEntry({
      stamp: `2026-03-${String(index).padStart(2, '0')} 10:00`,
      sessionId: `session-${index}-abcdefgh`,
      fromSeq: 1,
      throughSeq: 2,
      text: `Entry number ${index}.`,
    })}`;
  }
  return text;
}

describe('memory files', () => {
  it('lists exactly the four files, with size and time, zero and null when missing', async () => {
    const { send, workspace } = setup();
    writeFileSync(join(workspace, 'SOUL.md'), '# Soul\n');
    writeFileSync(join(workspace, 'HISTORY.md'), 'not listed');
    writeFileSync(join(workspace, 'notes.md'), 'not listed');
    const listed = await send('GET', '/api/memory');
    expect(listed.status).toBe(200);
    expect(listed.body['files']).toEqual([
      { name: 'SOUL.md', size: 7, updatedAt: Math.round(statSync(join(workspace, 'SOUL.md')).mtimeMs) },
      { name: 'USER.md', size: 0, updatedAt: null },
      { name: 'AGENTS.md', size: 0, updatedAt: null },
      { name: 'MEMORY.md', size: 0, updatedAt: null },
    ]);
  });

  it('reads, replaces (0600, atomically) and reads back; a missing file reads as empty', async () => {
    const { send, workspace, edits } = setup();
    expect(await send('GET', '/api/memory/files/USER.md')).toEqual({
      status: 200,
      body: { name: 'USER.md', content: '', etag: `"${contentHash('')}"` },
    });
    const content = '# About the owner\n\nName: Ana — likes ☕.\n';
    const put = await send('PUT', '/api/memory/files/USER.md', { content });
    expect(put).toEqual({
      status: 200,
      body: {
        name: 'USER.md',
        size: Buffer.byteLength(content),
        etag: `"${contentHash(content)}"`,
        versionId: 1,
      },
    });
    expect(readFileSync(join(workspace, 'USER.md'), 'utf8')).toBe(content);
    expect(statSync(join(workspace, 'USER.md')).mode & 0o777).toBe(0o600);
    expect((await send('GET', '/api/memory/files/USER.md')).body['content']).toBe(content);
    expect(edits).toEqual([{ name: 'USER.md', size: Buffer.byteLength(content) }]);
    // An empty file is allowed (the owner clears it).
    expect((await send('PUT', '/api/memory/files/USER.md', { content: '' })).body['size']).toBe(0);
  });

  it.each([
    ['HISTORY.md', '/api/memory/files/HISTORY.md'],
    ['a dot-dot path', '/api/memory/files/..%2FMEMORY.md'],
    ['an encoded slash', '/api/memory/files/x%2FMEMORY.md'],
    ['a sub-path', '/api/memory/files/a/MEMORY.md'],
    ['another case', '/api/memory/files/memory.md'],
    ['a malformed escape', '/api/memory/files/%E0%A4%A'],
    ['nothing', '/api/memory/files/'],
    ['a NUL byte', '/api/memory/files/MEMORY.md%00'],
  ])('answers 404 naming the allowed files for %s (read and write)', async (_name, path) => {
    const { send, workspace } = setup();
    writeFileSync(join(workspace, 'HISTORY.md'), 'secret history');
    for (const method of ['GET', 'PUT']) {
      const answer = await send(method, path, method === 'PUT' ? { content: 'x' } : undefined);
      expect(answer.status).toBe(404);
      expect(answer.body.error).toEqual({
        code: 'not_found',
        message: expect.stringMatching(/Only SOUL\.md, USER\.md, AGENTS\.md, MEMORY\.md/),
      });
    }
    expect(readFileSync(join(workspace, 'HISTORY.md'), 'utf8')).toBe('secret history');
  });

  it('never writes through a symlink planted at the file, nor reads through it', async () => {
    const { send, workspace, outside } = setup();
    const victim = join(outside, 'victim.txt');
    writeFileSync(victim, 'precious');
    symlinkSync(victim, join(workspace, 'MEMORY.md'));
    const put = await send('PUT', '/api/memory/files/MEMORY.md', { content: 'overwritten?' });
    expect(put.status).toBe(403);
    expect(put.body.error?.message).toMatch(/symbolic link/);
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect(lstatSync(join(workspace, 'MEMORY.md')).isSymbolicLink()).toBe(true);
    const get = await send('GET', '/api/memory/files/MEMORY.md');
    expect(get.status).toBe(403);
    expect(JSON.stringify(get.body)).not.toContain('precious');
    const listed = (await send('GET', '/api/memory')).body['files'] as Array<Record<string, unknown>>;
    expect(listed[3]).toMatchObject({ name: 'MEMORY.md', size: 0, updatedAt: null });
    expect(listed[3]!['problem']).toMatch(/symbolic link/);
    // A dangling link (to where a file could be created outside) is refused the same way.
    symlinkSync(join(outside, 'new.txt'), join(workspace, 'SOUL.md'));
    expect((await send('PUT', '/api/memory/files/SOUL.md', { content: 'x' })).status).toBe(403);
    expect(() => statSync(join(outside, 'new.txt'))).toThrow();
  });

  it('refuses a folder at the name, and does not read a hard-linked file', async () => {
    const { send, workspace, outside } = setup();
    mkdirSync(join(workspace, 'AGENTS.md'));
    expect((await send('PUT', '/api/memory/files/AGENTS.md', { content: 'x' })).status).toBe(403);
    expect((await send('GET', '/api/memory/files/AGENTS.md')).body.error?.message).toMatch(/folder/);
    const secret = join(outside, 'secret.txt');
    writeFileSync(secret, 'outside secret');
    linkSync(secret, join(workspace, 'SOUL.md'));
    const read = await send('GET', '/api/memory/files/SOUL.md');
    expect(read.status).toBe(403);
    expect(read.body.error?.message).toMatch(/hard links/);
    // Replacing it replaces the link only: the other name keeps its content.
    expect((await send('PUT', '/api/memory/files/SOUL.md', { content: '# Soul\n' })).status).toBe(200);
    expect(readFileSync(secret, 'utf8')).toBe('outside secret');
    expect(readFileSync(join(workspace, 'SOUL.md'), 'utf8')).toBe('# Soul\n');
  });

  it('caps the size at 256 KiB (413), counting UTF-8 bytes, and refuses a huge body before reading it', async () => {
    const { send, workspace } = setup();
    writeFileSync(join(workspace, 'MEMORY.md'), 'keep');
    const fits = 'x'.repeat(MAX_MEMORY_FILE_BYTES);
    expect((await send('PUT', '/api/memory/files/MEMORY.md', { content: fits })).status).toBe(200);
    const multibyte = '€'.repeat(MAX_MEMORY_FILE_BYTES / 3 + 1);
    const over = await send('PUT', '/api/memory/files/MEMORY.md', { content: multibyte });
    expect(over.status).toBe(413);
    expect(over.body.error).toMatchObject({ code: 'too_large', message: expect.stringMatching(/256 KiB/) });
    const huge = await send('PUT', '/api/memory/files/MEMORY.md', {
      content: 'y'.repeat(MAX_MEMORY_FILE_BYTES * 7),
    });
    expect(huge.status).toBe(413);
    expect(readFileSync(join(workspace, 'MEMORY.md'), 'utf8')).toBe(fits);
  });

  it.each([
    ['malformed JSON', '{"content": '],
    ['no content', {}],
    ['content of the wrong type', { content: 42 }],
    ['an unknown key', { content: 'x', mode: 'append' }],
    ['an array', ['x']],
  ])('refuses %s with 400 and leaves the file alone', async (_name, body) => {
    const { send, workspace } = setup();
    writeFileSync(join(workspace, 'MEMORY.md'), 'keep');
    const answer = await send('PUT', '/api/memory/files/MEMORY.md', body);
    expect(answer.status).toBe(400);
    expect(answer.body.error?.code).toBe('bad_request');
    expect(readFileSync(join(workspace, 'MEMORY.md'), 'utf8')).toBe('keep');
  });
});

describe('memory history', () => {
  it('pages HISTORY.md newest first with a cursor that survives appends', async () => {
    const { send, workspace } = setup();
    expect((await send('GET', '/api/memory/history')).body).toEqual({ entries: [] });
    writeFileSync(join(workspace, 'HISTORY.md'), historyFile(5));
    const first = await send('GET', '/api/memory/history?limit=2');
    expect(first.body).toEqual({
      entries: [
        {
          at: '2026-03-05 10:00',
          text: 'Entry number 5.',
          heading: '2026-03-05 10:00 · session session-',
          sessionId: 'session-5-abcdefgh',
        },
        expect.objectContaining({ at: '2026-03-04 10:00', text: 'Entry number 4.' }),
      ],
      next: '3',
    });
    // Consolidation appends a newer entry; the cursor still continues where the first page ended.
    writeFileSync(join(workspace, 'HISTORY.md'), historyFile(6));
    const second = await send('GET', '/api/memory/history?limit=2&before=3');
    expect((second.body['entries'] as Array<{ text: string }>).map((entry) => entry.text)).toEqual([
      'Entry number 3.',
      'Entry number 2.',
    ]);
    const last = await send('GET', `/api/memory/history?limit=2&before=${second.body['next']}`);
    expect(last.body).toEqual({ entries: [expect.objectContaining({ text: 'Entry number 1.' })] });
    expect((await send('GET', '/api/memory/history')).body['entries']).toHaveLength(6);
  });

  it('keeps hand-written entries (no stamp, no marker) and refuses bad paging with 400', async () => {
    const { send, workspace } = setup();
    writeFileSync(join(workspace, 'HISTORY.md'), '# History\n\n## Summer notes\nWent hiking.\n');
    expect((await send('GET', '/api/memory/history')).body).toEqual({
      entries: [{ text: 'Went hiking.', heading: 'Summer notes' }],
    });
    for (const query of ['limit=0', 'limit=201', 'limit=abc', 'before=-1', 'before=1e3', 'limit=2.5']) {
      const answer = await send('GET', `/api/memory/history?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body.error?.code).toBe('bad_request');
    }
  });

  it('does not read HISTORY.md through a symlink', async () => {
    const { send, workspace, outside } = setup();
    writeFileSync(join(outside, 'h.md'), historyFile(1));
    symlinkSync(join(outside, 'h.md'), join(workspace, 'HISTORY.md'));
    expect((await send('GET', '/api/memory/history')).status).toBe(403);
  });
});

describe('memory search', () => {
  it('finds past messages and HISTORY.md entries as memory_search does', async () => {
    const { send, workspace, db } = setup();
    const store = new SqliteSessionStore(db);
    const session = await store.activeSession('k', { channel: 'api', chatId: 'c' });
    await store.appendMessages(session.id, [
      { message: { role: 'user', content: 'My sister Ana moves to Lisbon in June.' }, tokens: 10 },
      { message: { role: 'assistant', content: 'Noted.' }, tokens: 2 },
    ]);
    writeFileSync(
      join(workspace, 'HISTORY.md'),
      `${HISTORY_HEADER}\n## 2026-03-01 09:00 · session abc\nTalked about Lisbon flats.\n`,
    );
    const found = await send('GET', '/api/memory/search?q=Lisbon');
    expect(found.status).toBe(200);
    const results = found.body['results'] as Array<Record<string, unknown>>;
    expect(results).toHaveLength(2);
    expect(results[0]).toMatchObject({ source: 'history', date: '2026-03-01', excerpt: expect.any(String) });
    expect(results[1]).toMatchObject({
      source: 'message',
      sessionId: session.id,
      seq: 1,
      role: 'user',
      snippet: expect.stringContaining('[Lisbon]'),
    });
    expect(((await send('GET', '/api/memory/search?q=zebra')).body['results'] as unknown[]).length).toBe(0);
    // Query text that is FTS syntax is reduced to words, never an error.
    expect((await send('GET', '/api/memory/search?q=%22Lisbon%22%20OR%20*')).status).toBe(200);
    expect((await send('GET', '/api/memory/search?q=Lisbon&until=2026-01-01')).body['results']).toEqual([]);
  });

  it.each([
    ['no q', ''],
    ['an empty q', '?q='],
    ['a blank q', '?q=%20%20'],
    ['a bad limit', '?q=x&limit=0'],
    ['a limit too high', '?q=x&limit=31'],
    ['a bad day', '?q=x&since=March'],
    ['a huge q', `?q=${'a'.repeat(501)}`],
  ])('refuses %s with 400', async (_name, query) => {
    const { send } = setup();
    const answer = await send('GET', `/api/memory/search${query}`);
    expect(answer.status).toBe(400);
    expect(answer.body.error?.code).toBe('bad_request');
  });
});
