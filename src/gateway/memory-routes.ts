import { type Context, type Handler, Hono } from 'hono';
import { z } from 'zod';
import { type MemorySearcher, searchMemory } from '../memory/memory-search.js';
import {
  HISTORY_PAGE,
  isMemoryFileName,
  MAX_MEMORY_FILE_BYTES,
  type MemoryConflict,
  type MemoryFileName,
  type MemoryFileService,
  unknownMemoryFile,
} from '../services/memory-file-service.js';
import type { MemorySearchService } from '../services/memory-search-service.js';
import type * as Api from './api-types.js';
import { failureResponse } from './failure-response.js';
import { problem } from './problem.js';
import { limitBody, validBody, wholeQuery } from './route-input.js';

/** Search results per source (past messages, HISTORY.md), as the `memory_search` tool allows. */
const SEARCH_LIMIT = { default: 8, max: 30 };
const MAX_QUERY_CHARS = 500;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

export interface MemoryRouteOptions {
  /** The workspace folder (read per request: a config reload may move it). */
  workspace: () => string;
  /** The memory-file actions (list, read, replace, history pages) the routes answer with. */
  files: Pick<
    MemoryFileService,
    'list' | 'read' | 'replace' | 'history' | 'versions' | 'version' | 'restore'
  >;
  /** The past messages of every session `memory_search` searches. */
  messages: MemorySearchService['messages'];
  /** The owner's IANA zone: search dates and stamps are read in it. */
  timezone: () => string | undefined;
  /** The search `memory_search` runs (keywords and meaning); default: keyword search over `messages`. */
  search?: MemorySearcher;
  /** Told after a file was replaced or restored over the API (for the log; never given the content). */
  onEdit?: (edit: { name: MemoryFileName | string; size: number }) => void;
}

/**
 * The name given by the rest of the path after `/api/memory/files/` (percent-decoded; the service refuses
 * any but the four), or undefined for a malformed escape.
 */
function memoryFileName(c: Context): string | undefined {
  try {
    return decodeURIComponent(c.req.path.slice('/api/memory/files/'.length));
  } catch {
    return undefined;
  }
}

/** A content hash as an ETag / If-Match value: quoted. */
const quoted = (hash: string) => `"${hash}"`;

/**
 * The hash an `If-Match` header names (its first entry, weak or strong), `'*'` for any, undefined without the
 * header. A malformed value yields '' and so matches nothing (412, as HTTP has it).
 */
function ifMatch(c: Context): string | undefined {
  const header = c.req.header('if-match');
  if (header === undefined) return undefined;
  const first = header.split(',')[0]!.trim();
  if (first === '*') return '*';
  const hash = /^(?:W\/)?"([0-9a-f]{64})"$/i.exec(first)?.[1];
  return hash ? hash.toLowerCase() : '';
}

/** 412 with what the file holds now (MemoryFileConflict); nothing was written. */
function conflictResponse(c: Context, conflict: MemoryConflict): Response {
  c.header('ETag', quoted(conflict.etag));
  return c.json(
    {
      error: { code: 'conflict', message: conflict.error },
      name: conflict.name,
      content: conflict.content,
      etag: quoted(conflict.etag),
      ...(conflict.changedBy ? { changedBy: conflict.changedBy } : {}),
    } satisfies Api.MemoryFileConflict,
    412,
  );
}

/** The write options of a request's `If-Match` (`*` is no condition). */
const matchOption = (c: Context) => {
  const hash = ifMatch(c);
  return hash !== undefined && hash !== '*' ? { ifMatch: hash } : {};
};

const fileBody = z.object({ content: z.string({ error: 'content must be a string' }) }).strict();

/** `GET /api/memory/history`: a page of HISTORY.md entries, newest first (see memoryRoutes). */
function historyPage(options: MemoryRouteOptions): Handler {
  return async (c) => {
    const limit = wholeQuery(c, 'limit', 1, HISTORY_PAGE.max);
    if (limit === 'bad')
      return c.json(
        problem('bad_request', `limit must be a whole number from 1 to ${HISTORY_PAGE.max}.`),
        400,
      );
    const before = wholeQuery(c, 'before', 0, Number.MAX_SAFE_INTEGER);
    if (before === 'bad')
      return c.json(
        problem('bad_request', 'before must be a cursor from an earlier answer (its next).'),
        400,
      );
    const page = await options.files.history(options.workspace(), {
      ...(limit !== undefined ? { limit } : {}),
      ...(before !== undefined ? { before } : {}),
    });
    if (!page.ok) return failureResponse(c, page);
    const { ok: _ok, ...answer } = page;
    return c.json(answer satisfies Api.MemoryHistoryPage);
  };
}

/** `GET /api/memory/search`: past messages and HISTORY.md entries, as `memory_search` finds them. */
function searchHandler(options: MemoryRouteOptions): Handler {
  return async (c) => {
    const text = (c.req.query('q') ?? '').trim();
    if (!text) return c.json(problem('bad_request', 'q must name the words to search for.'), 400);
    if (text.length > MAX_QUERY_CHARS)
      return c.json(problem('bad_request', `q must be at most ${MAX_QUERY_CHARS} characters.`), 400);
    const limit = wholeQuery(c, 'limit', 1, SEARCH_LIMIT.max);
    if (limit === 'bad')
      return c.json(
        problem('bad_request', `limit must be a whole number from 1 to ${SEARCH_LIMIT.max}.`),
        400,
      );
    const since = c.req.query('since');
    const until = c.req.query('until');
    const badDay = [since, until].find((day) => day !== undefined && !DAY.test(day));
    if (badDay !== undefined)
      return c.json(problem('bad_request', `since and until are days as YYYY-MM-DD (got "${badDay}").`), 400);
    const zone = options.timezone();
    const query = {
      text,
      limit: limit ?? SEARCH_LIMIT.default,
      ...(since ? { since } : {}),
      ...(until ? { until } : {}),
    };
    const found = options.search
      ? await options.search(query, c.req.raw.signal)
      : searchMemory(
          { messages: options.messages, workspace: options.workspace(), ...(zone ? { timezone: zone } : {}) },
          query,
        );
    const results = [
      ...found.history.map((entry) => ({
        source: 'history' as const,
        heading: entry.heading,
        ...(entry.date ? { date: entry.date } : {}),
        ...(entry.sessionId ? { sessionId: entry.sessionId } : {}),
        excerpt: entry.excerpt,
        score: entry.score,
        ...(entry.match ? { match: entry.match } : {}),
      })),
      ...found.messages.map((hit) => ({ source: 'message' as const, ...hit })),
    ];
    return c.json({ results } satisfies Api.MemorySearchResults);
  };
}

const VERSION_ID = /^[1-9]\d{0,15}$/;

/**
 * The file history (see versionRoutes in memoryRoutes' JSDoc): list, one version with its diff, restore.
 */
function versionRoutes(app: Hono, options: MemoryRouteOptions): void {
  app.get('/api/memory/versions', (c) => {
    const limit = wholeQuery(c, 'limit', 1, 1000);
    if (limit === 'bad')
      return c.json(problem('bad_request', 'limit must be a whole number from 1 to 1000.'), 400);
    const file = c.req.query('file');
    const listed = options.files.versions({
      workspace: options.workspace(),
      ...(file ? { file } : {}),
      ...(limit !== undefined ? { limit } : {}),
    });
    if (!listed.ok) return failureResponse(c, listed);
    return c.json({ versions: listed.versions } satisfies Api.MemoryVersionList);
  });

  app.get('/api/memory/versions/:id', (c) => {
    const id = c.req.param('id');
    const against = c.req.query('against');
    if (!VERSION_ID.test(id) || (against !== undefined && !VERSION_ID.test(against)))
      return c.json(problem('bad_request', 'A version id is a positive whole number.'), 400);
    const found = options.files.version(Number(id), against === undefined ? undefined : Number(against));
    if (!found.ok) return failureResponse(c, found);
    const { version, previousId, diff } = found.detail;
    return c.json({
      version: { ...version, bytes: Buffer.byteLength(version.content, 'utf8') },
      ...(previousId !== undefined ? { previousId } : {}),
      diff,
    } satisfies Api.MemoryVersionDetail);
  });

  app.post('/api/memory/versions/:id/restore', async (c) => {
    const id = c.req.param('id');
    if (!VERSION_ID.test(id))
      return c.json(problem('bad_request', 'A version id is a positive whole number.'), 400);
    const restored = await options.files.restore(options.workspace(), Number(id), {
      note: `revert to #${id} (web)`,
      ...matchOption(c),
    });
    if (!restored.ok)
      return restored.code === 'conflict' ? conflictResponse(c, restored) : failureResponse(c, restored);
    const { ok: _ok, ...answer } = restored;
    options.onEdit?.({ name: restored.path, size: restored.size });
    c.header('ETag', quoted(restored.etag));
    return c.json({ ...answer, etag: quoted(restored.etag) } satisfies Api.MemoryVersionRestored);
  });
}

/**
 * The memory routes: the owner's four Markdown files (list, read, replace), HISTORY.md paged newest first,
 * and the search `memory_search` / `wren memory search` run.
 *
 * - `GET /api/memory` → `{files: [{name, size, updatedAt}]}` (size 0, updatedAt null when missing);
 * - `GET /api/memory/files/:name` → `{name, content, etag}` and an `ETag` header (the quoted SHA-256 of the
 *   content; '' when missing; 404 for any other name); the read records a disk edit as a version;
 * - `PUT /api/memory/files/:name` `{content}` → `{name, size, etag, versionId}`: at most 256 KiB (413),
 *   written the way the memory code writes them (serialised with consolidations in this process, temp file
 *   + fsync + rename, 0600), never through a symlink at the file's place (403), recorded as a version by
 *   `web`. With `If-Match: "<etag>"` only over that text: otherwise 412 with the current `{content, etag,
 *   changedBy}` and nothing written (a consolidation landing meanwhile is never overwritten);
 * - `GET /api/memory/versions?file=NAME&limit=N` → `{versions}` newest first (any instruction file, or all);
 * - `GET /api/memory/versions/:id?against=ID` → `{version (with content), previousId, diff}`: a unified diff
 *   against the file's previous version (or `against`);
 * - `POST /api/memory/versions/:id/restore` → `{path, etag, versionId, changed}`: the version's text written
 *   back as a new version by `revert`; `If-Match` as for PUT;
 * - `GET /api/memory/history?limit=N&before=CURSOR` → `{entries, next?}`: `next` is the cursor of the
 *   following (older) page; entries are only ever appended, so a cursor stays valid as the file grows;
 * - `GET /api/memory/search?q=…&limit=N&since=YYYY-MM-DD&until=YYYY-MM-DD` → `{results}` (with an embedding
 *   model configured, keywords and meaning fused; each result then says how it matched: `match`).
 */
export function memoryRoutes(options: MemoryRouteOptions): Hono {
  const app = new Hono();
  app.get('/api/memory', async (c) =>
    c.json({ files: await options.files.list(options.workspace()) } satisfies Api.MemoryFileList),
  );

  app.get('/api/memory/files/*', async (c) => {
    const name = memoryFileName(c) ?? '';
    const read = await options.files.read(options.workspace(), name);
    if (!read.ok) return failureResponse(c, read);
    c.header('ETag', quoted(read.etag));
    return c.json({ name, content: read.content, etag: quoted(read.etag) } satisfies Api.MemoryFileContent);
  });

  // JSON escapes can make a string up to 6× longer than its UTF-8 bytes: a larger body is surely too large.
  app.put('/api/memory/files/*', limitBody(MAX_MEMORY_FILE_BYTES * 6 + 1024), async (c) => {
    const name = memoryFileName(c) ?? '';
    if (!isMemoryFileName(name)) return failureResponse(c, unknownMemoryFile());
    const parsed = await validBody(c, fileBody);
    if (!parsed.ok) return parsed.response;
    const written = await options.files.replace(options.workspace(), name, parsed.value.content, {
      author: 'web',
      ...matchOption(c),
    });
    if (!written.ok)
      return written.code === 'conflict' ? conflictResponse(c, written) : failureResponse(c, written);
    options.onEdit?.({ name: written.name, size: written.size });
    c.header('ETag', quoted(written.etag));
    return c.json({
      name: written.name,
      size: written.size,
      etag: quoted(written.etag),
      ...(written.versionId ? { versionId: written.versionId } : {}),
    } satisfies Api.MemoryFileWritten);
  });

  app.get('/api/memory/history', historyPage(options));
  versionRoutes(app, options);

  app.get('/api/memory/search', searchHandler(options));
  return app;
}
