import { describe, expect, it } from 'vitest';
import { jsonSender, routeHarness } from '../../test/support/route-harness.js';
import { createMemoService, tagsOf, withTags } from '../services/memo-service.js';
import { MemoRepository } from '../store/memo-repository.js';
import { memoRoutes } from './memo-routes.js';

const harness = routeHarness();

type Memo = { id: number; text: string; tags: string[]; createdAt: number; updatedAt: number };
type Body = Record<string, unknown> & {
  error?: { code: string; message: string };
  memo?: Memo;
  memos?: Memo[];
};

function setup() {
  const { db } = harness.database('wren-memoapi-');
  let now = Date.parse('2026-04-01T09:00:00Z');
  const memos = new MemoRepository(db, () => now++);
  const app = memoRoutes(createMemoService({ memos }));
  const send = jsonSender<Body>(app);
  return { memos, send };
}

describe('memo tags', () => {
  it('are #words of the text: appended once, read back in order', () => {
    expect(withTags('Door code 4711', ['home', 'codes'])).toBe('Door code 4711 #home #codes');
    expect(withTags('Door code #Home 4711', ['home', 'codes', 'codes'])).toBe('Door code #Home 4711 #codes');
    expect(tagsOf('a #one, b #two. c#not #one #three')).toEqual(['one', 'two', 'three']);
    expect(tagsOf('issue #42 and ##x')).toEqual(['42']);
  });
});

describe('memo routes', () => {
  it('save, list newest first, search, edit and delete — on the memo tool’s repository', async () => {
    const { send, memos } = setup();
    const saved = await send('POST', '/api/memos', { text: ' Fridge code is 1234 ', tags: ['home'] });
    expect(saved.status).toBe(201);
    expect(saved.body.memo).toMatchObject({ id: 1, text: 'Fridge code is 1234 #home', tags: ['home'] });
    await send('POST', '/api/memos', { text: 'Ana likes tulips' });
    expect((await send('GET', '/api/memos')).body.memos?.map((memo) => memo.id)).toEqual([2, 1]);
    expect((await send('GET', '/api/memos?limit=1')).body.memos?.map((memo) => memo.id)).toEqual([2]);
    expect((await send('GET', '/api/memos?q=fridge')).body.memos?.map((memo) => memo.id)).toEqual([1]);
    expect((await send('GET', '/api/memos?q=home')).body.memos?.map((memo) => memo.id)).toEqual([1]);
    // FTS syntax in the query is reduced to words, never an error.
    expect((await send('GET', '/api/memos?q=%22tulips%22%20NEAR(')).body.memos?.map((m) => m.id)).toEqual([
      2,
    ]);

    const edited = await send('PATCH', '/api/memos/2', { text: 'Ana likes peonies' });
    expect(edited.body.memo).toMatchObject({ id: 2, text: 'Ana likes peonies', tags: [] });
    expect(edited.body.memo!.updatedAt).toBeGreaterThan(edited.body.memo!.createdAt);
    // The search index follows the edit.
    expect((await send('GET', '/api/memos?q=tulips')).body.memos).toEqual([]);
    expect((await send('GET', '/api/memos?q=peonies')).body.memos?.map((m) => m.id)).toEqual([2]);
    const tagged = await send('PATCH', '/api/memos/2', { tags: ['family'] });
    expect(tagged.body.memo).toMatchObject({ text: 'Ana likes peonies #family', tags: ['family'] });

    expect(await send('DELETE', '/api/memos/1')).toEqual({ status: 200, body: { deleted: 1 } });
    expect((await send('DELETE', '/api/memos/1')).status).toBe(404);
    expect((await send('PATCH', '/api/memos/1', { text: 'x' })).status).toBe(404);
    expect(memos.count()).toBe(1);
  });

  it.each([
    ['malformed JSON', '{"text"'],
    ['no text', { tags: ['x'] }],
    ['a blank text', { text: ' \n ' }],
    ['a text of the wrong type', { text: ['x'] }],
    ['a tag with a space', { text: 'x', tags: ['two words'] }],
    ['a tag that is no string', { text: 'x', tags: [1] }],
    ['tags that are no list', { text: 'x', tags: 'home' }],
    ['an unknown key', { text: 'x', title: 'y' }],
    ['a text over the cap', { text: 'x'.repeat(100_001) }],
  ])('refuses to save %s (400, nothing stored)', async (_name, body) => {
    const { send, memos } = setup();
    const answer = await send('POST', '/api/memos', body);
    expect(answer.status).toBe(400);
    expect(answer.body.error?.code).toBe('bad_request');
    expect(memos.count()).toBe(0);
  });

  it('refuses bad ids, queries and oversize bodies', async () => {
    const { send, memos } = setup();
    await send('POST', '/api/memos', { text: 'keep' });
    for (const id of ['abc', '0', '1e3']) {
      expect((await send('PATCH', `/api/memos/${id}`, { text: 'x' })).status, id).toBe(400);
      expect((await send('DELETE', `/api/memos/${id}`)).status, id).toBe(400);
    }
    expect((await send('PATCH', '/api/memos/1', { text: '' })).status).toBe(400);
    expect((await send('GET', '/api/memos?limit=0')).status).toBe(400);
    expect((await send('GET', `/api/memos?q=${'a'.repeat(501)}`)).status).toBe(400);
    expect((await send('POST', '/api/memos', { text: 'x'.repeat(1_100_000) })).status).toBe(413);
    expect(memos.list()).toMatchObject([{ text: 'keep' }]);
  });
});
