import { Hono } from 'hono';
import { z } from 'zod';
import { type Memo, type MemoService, tagsOf } from '../services/memo-service.js';
import type * as Api from './api-types.js';
import { failureResponse } from './failure-response.js';
import { problem } from './problem.js';
import { badId, limitBody, positiveId, validBody, wholeQuery } from './route-input.js';

const LIMIT = { list: 100, search: 50, max: 500 };
const MAX_QUERY_CHARS = 500;

// The body's shape only: the memo service checks the text and the tags.
const newMemo = z.object({ text: z.string(), tags: z.array(z.string()).optional() }).strict();
const memoChanges = z.object({ text: z.string().optional(), tags: z.array(z.string()).optional() }).strict();

/** A memo as the API shows it: the stored fields plus the tags read from its text. */
const shown = (memo: Memo): Api.Memo => ({ ...memo, tags: tagsOf(memo.text) });

/**
 * The owner's memos over HTTP, through the memo service the `memo` tool and `wren memo` use:
 *
 * - `GET /api/memos?q=…&limit=N` → `{memos}`: with `q`, best match first (the tool's full-text search),
 *   else newest first;
 * - `POST /api/memos` `{text, tags?}` → `201 {memo}`;
 * - `PATCH /api/memos/:id` `{text?, tags?}` → `{memo}` (`text` replaces the text; `tags` are added to it);
 * - `DELETE /api/memos/:id` → `{deleted: id}`.
 *
 * Every memo carries `tags`: the `#words` of its text (tags sent are stored that way, see `withTags`).
 * A refusal of the service answers 400 (invalid), 404 (no such memo) or 413 (too large with its tags).
 */
export function memoRoutes(memos: MemoService): Hono {
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
    const saved = memos.add(parsed.value);
    if (!saved.ok) return failureResponse(c, saved);
    return c.json({ memo: shown(saved.memo) } satisfies Api.MemoSaved, 201);
  });

  app.patch('/api/memos/:id', async (c) => {
    const id = positiveId(c);
    if (id === undefined) return badId(c, 'memo');
    const parsed = await validBody(c, memoChanges);
    if (!parsed.ok) return parsed.response;
    const saved = memos.update(id, parsed.value);
    if (!saved.ok) return failureResponse(c, saved);
    return c.json({ memo: shown(saved.memo) } satisfies Api.MemoSaved);
  });

  app.delete('/api/memos/:id', (c) => {
    const id = positiveId(c);
    if (id === undefined) return badId(c, 'memo');
    const deleted = memos.delete(id);
    return deleted.ok ? c.json({ deleted: id } satisfies Api.Deleted) : failureResponse(c, deleted);
  });
  return app;
}
