import { Hono } from 'hono';
import { z } from 'zod';
import type { Memo } from '../store/memo-repository.js';
import type { MemoStore } from '../store/ports.js';
import type * as Api from './api-types.js';
import { problem } from './problem.js';
import { badId, limitBody, positiveId, validBody, wholeQuery } from './route-input.js';

/** Longest memo text the API stores (the `memo` tool has no cap; a memo is a note, not a document). */
export const MAX_MEMO_CHARS = 100_000;
const LIMIT = { list: 100, search: 50, max: 500 };
const MAX_QUERY_CHARS = 500;

/** A tag: one word of letters, digits, `_` or `-` (it becomes `#word` in the text). */
const TAG = /^[\p{L}\p{N}_-]{1,40}$/u;
const HASHTAG = /(?:^|\s)#([\p{L}\p{N}_-]{1,40})(?=$|[\s.,;:!?)])/gu;

const text = z
  .string()
  .max(MAX_MEMO_CHARS)
  .refine((value) => value.trim() !== '', 'text must not be empty');
const tags = z.array(z.string().regex(TAG, 'each tag is 1-40 letters, digits, _ or -')).max(20);

const newMemo = z.object({ text, tags: tags.optional() }).strict();
const memoChanges = z.object({ text: text.optional(), tags: tags.optional() }).strict();

/** The `#tags` written in a memo's text, in order, each once (case-insensitively). */
export function tagsOf(body: string): string[] {
  const seen = new Set<string>();
  const found: string[] = [];
  for (const match of body.matchAll(HASHTAG)) {
    const tag = match[1]!;
    if (seen.has(tag.toLowerCase())) continue;
    seen.add(tag.toLowerCase());
    found.push(tag);
  }
  return found;
}

/**
 * `body` with each of `tags` it does not carry yet appended as `#tag`. Memos have no tag column: a tag is a
 * `#word` in the text, which full-text search finds like any other word and which `tagsOf` reads back.
 */
export function withTags(body: string, wanted: readonly string[]): string {
  const present = new Set(tagsOf(body).map((tag) => tag.toLowerCase()));
  const missing: string[] = [];
  for (const tag of wanted) {
    if (present.has(tag.toLowerCase())) continue;
    present.add(tag.toLowerCase());
    missing.push(`#${tag}`);
  }
  const trimmed = body.trim();
  return missing.length ? `${trimmed}${trimmed ? ' ' : ''}${missing.join(' ')}` : trimmed;
}

/** A memo as the API shows it: the stored fields plus the tags read from its text. */
const shown = (memo: Memo): Api.Memo => ({ ...memo, tags: tagsOf(memo.text) });

/**
 * The owner's memos over HTTP, on the repository the `memo` tool and `wren memo` use:
 *
 * - `GET /api/memos?q=…&limit=N` → `{memos}`: with `q`, best match first (the tool's full-text search),
 *   else newest first;
 * - `POST /api/memos` `{text, tags?}` → `201 {memo}`;
 * - `PATCH /api/memos/:id` `{text?, tags?}` → `{memo}` (`text` replaces the text; `tags` are added to it);
 * - `DELETE /api/memos/:id` → `{deleted: id}`.
 *
 * Every memo carries `tags`: the `#words` of its text (tags sent are stored that way, see `withTags`).
 */
export function memoRoutes(memos: MemoStore): Hono {
  const app = new Hono();
  app.use('/api/memos', limitBody());
  app.use('/api/memos/*', limitBody());

  app.get('/api/memos', (c) => {
    const query = (c.req.query('q') ?? '').trim();
    if (query.length > MAX_QUERY_CHARS)
      return c.json(problem('bad_request', `q must be at most ${MAX_QUERY_CHARS} characters.`), 400);
    const limit = wholeQuery(c, 'limit', 1, LIMIT.max);
    if (limit === 'bad')
      return c.json(problem('bad_request', `limit must be a whole number from 1 to ${LIMIT.max}.`), 400);
    const found = query ? memos.search(query, limit ?? LIMIT.search) : memos.list(limit ?? LIMIT.list);
    return c.json({ memos: found.map(shown) } satisfies Api.MemoList);
  });

  app.post('/api/memos', async (c) => {
    const parsed = await validBody(c, newMemo);
    if (!parsed.ok) return parsed.response;
    const body = withTags(parsed.value.text, parsed.value.tags ?? []);
    if (body.length > MAX_MEMO_CHARS)
      return c.json(
        problem('too_large', `The memo with its tags is over ${MAX_MEMO_CHARS} characters.`),
        413,
      );
    return c.json({ memo: shown(memos.add(body)) } satisfies Api.MemoSaved, 201);
  });

  app.patch('/api/memos/:id', async (c) => {
    const id = positiveId(c);
    if (id === undefined) return badId(c, 'memo');
    const parsed = await validBody(c, memoChanges);
    if (!parsed.ok) return parsed.response;
    const current = memos.get(id);
    if (!current) return c.json(problem('not_found', `There is no memo #${id}.`), 404);
    const body = withTags(parsed.value.text ?? current.text, parsed.value.tags ?? []);
    if (body.length > MAX_MEMO_CHARS)
      return c.json(
        problem('too_large', `The memo with its tags is over ${MAX_MEMO_CHARS} characters.`),
        413,
      );
    if (body === current.text) return c.json({ memo: shown(current) } satisfies Api.MemoSaved);
    const memo = memos.update(id, body);
    return memo
      ? c.json({ memo: shown(memo) } satisfies Api.MemoSaved)
      : c.json(problem('not_found', `There is no memo #${id}.`), 404);
  });

  app.delete('/api/memos/:id', (c) => {
    const id = positiveId(c);
    if (id === undefined) return badId(c, 'memo');
    return memos.delete(id)
      ? c.json({ deleted: id } satisfies Api.Deleted)
      : c.json(problem('not_found', `There is no memo #${id}.`), 404);
  });
  return app;
}
