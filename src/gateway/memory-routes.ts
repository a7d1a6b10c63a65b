import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, open } from 'node:fs/promises';
import { join } from 'node:path';
import { type Context, type Handler, Hono } from 'hono';
import { z } from 'zod';
import { parseHistoryEntries } from '../memory/history-file.js';
import { updateMarkdownFile } from '../memory/markdown-file.js';
import { type MemorySearcher, searchMemory } from '../memory/memory-search.js';
import type { MemorySearchService } from '../services/memory-search-service.js';
import { O_NOFOLLOW } from '../tools/fs/open-folder.js';
import type * as Api from './api-types.js';
import { problem } from './problem.js';
import { limitBody, validBody, wholeQuery } from './route-input.js';

/** The workspace files the owner may read and replace over the API; HISTORY.md is read through /history. */
export const MEMORY_FILES = ['SOUL.md', 'USER.md', 'AGENTS.md', 'MEMORY.md'] as const;
export type MemoryFileName = (typeof MEMORY_FILES)[number];

/**
 * The largest memory file `PUT` accepts, in UTF-8 bytes. The memory code has no hard cap of its own
 * (`memory.memory_file_chars` is only what consolidation keeps MEMORY.md under), so this is the API's.
 */
export const MAX_MEMORY_FILE_BYTES = 256 * 1024;

/** History entries per page: the default and the most one request may ask for. */
const HISTORY_PAGE = { default: 20, max: 200 };
/** Search results per source (past messages, HISTORY.md), as the `memory_search` tool allows. */
const SEARCH_LIMIT = { default: 8, max: 30 };
const MAX_QUERY_CHARS = 500;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** O_NONBLOCK: a FIFO planted at a memory file's place must not hang the request (refused after fstat). */
const READ_FLAGS = constants.O_RDONLY | O_NOFOLLOW | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

export interface MemoryRouteOptions {
  /** The workspace folder (read per request: a config reload may move it). */
  workspace: () => string;
  /** The past messages of every session `memory_search` searches. */
  messages: MemorySearchService['messages'];
  /** The owner's IANA zone: search dates and stamps are read in it. */
  timezone: () => string | undefined;
  /** The search `memory_search` runs (keywords and meaning); default: keyword search over `messages`. */
  search?: MemorySearcher;
  /** Told after a file was replaced over the API (for the log; never given the content). */
  onEdit?: (edit: { name: MemoryFileName; size: number }) => void;
}

/** What reading a memory file found: its text, nothing, or a reason not to touch it. */
type ReadResult =
  | { kind: 'file'; text: string; info: Stats }
  | { kind: 'missing' }
  | { kind: 'refused'; message: string };

/** Why `name` (a lstat or fstat of it) is not a file the API reads or replaces; undefined when it is one. */
function refusal(name: string, info: Stats): string | undefined {
  if (info.isSymbolicLink())
    return `${name} is a symbolic link; the API neither reads nor writes through links. Edit the file it points to, or replace the link with a regular file.`;
  if (info.isDirectory()) return `${name} is a folder, not a file; remove or rename it first.`;
  if (!info.isFile()) return `${name} is not a regular file; remove it first.`;
  return undefined;
}

/**
 * Reads `workspace/name` without following a symlink at its place (O_NOFOLLOW) and without blocking on a
 * FIFO. A file with several hard links is refused like the file tools refuse it: the other link may be a file
 * outside the workspace.
 */
async function readMemoryFile(workspace: string, name: string): Promise<ReadResult> {
  let handle: FileHandle;
  try {
    handle = await open(join(workspace, name), READ_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    if (code === 'ELOOP') {
      const info = await lstat(join(workspace, name));
      return { kind: 'refused', message: refusal(name, info) ?? `${name} cannot be opened.` };
    }
    throw error;
  }
  try {
    const info = await handle.stat();
    const refused = refusal(name, info);
    if (refused) return { kind: 'refused', message: refused };
    if (info.nlink > 1)
      return {
        kind: 'refused',
        message: `${name} has ${info.nlink} hard links; the API reads only files with a single link (the other may be a file outside the workspace).`,
      };
    return { kind: 'file', text: await handle.readFile('utf8'), info };
  } finally {
    await handle.close();
  }
}

/**
 * The memory file named by the rest of the path after `/api/memory/files/` (percent-decoded), or undefined
 * for anything but the four names: `../x`, `a/b`, an encoded slash, HISTORY.md, a malformed escape.
 */
function memoryFileName(c: Context): MemoryFileName | undefined {
  const raw = c.req.path.slice('/api/memory/files/'.length);
  let name: string;
  try {
    name = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  return (MEMORY_FILES as readonly string[]).includes(name) ? (name as MemoryFileName) : undefined;
}

const noSuchFile = (c: Context) =>
  c.json(
    problem(
      'not_found',
      `Only ${MEMORY_FILES.join(', ')} can be read or written here (HISTORY.md through /api/memory/history).`,
    ),
    404,
  );

const fileBody = z.object({ content: z.string({ error: 'content must be a string' }) }).strict();

/** A HISTORY.md entry as the API shows it (newest first). */
export interface HistoryItem {
  /** The stamp that starts the heading (`YYYY-MM-DD HH:MM` or `YYYY-MM-DD`, the owner's local time). */
  at?: string;
  /** The entry's text (the consolidation marker left out). */
  text: string;
  /** The whole heading, e.g. `2026-12-01 09:30 · session 2f0c1a2b` (hand-written ones as written). */
  heading: string;
  /** The full session id, for entries Wren wrote. */
  sessionId?: string;
}

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
    const read = await readMemoryFile(options.workspace(), 'HISTORY.md');
    if (read.kind === 'refused') return c.json(problem('forbidden', read.message), 403);
    const all = read.kind === 'file' ? parseHistoryEntries(read.text) : [];
    // The cursor is the file-order index of the oldest entry already shown: older ones come before it.
    const end = Math.min(before ?? all.length, all.length);
    const start = Math.max(0, end - (limit ?? HISTORY_PAGE.default));
    const entries: HistoryItem[] = all
      .slice(start, end)
      .reverse()
      .map((entry) => {
        const at = /^\d{4}-\d{2}-\d{2}(?: \d{2}:\d{2})?/.exec(entry.heading)?.[0];
        return {
          ...(at ? { at } : {}),
          text: entry.body,
          heading: entry.heading,
          ...(entry.sessionId ? { sessionId: entry.sessionId } : {}),
        };
      });
    return c.json({ entries, ...(start > 0 ? { next: String(start) } : {}) } satisfies Api.MemoryHistoryPage);
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

/**
 * The memory routes: the owner's four Markdown files (list, read, replace), HISTORY.md paged newest first,
 * and the search `memory_search` / `wren memory search` run.
 *
 * - `GET /api/memory` → `{files: [{name, size, updatedAt}]}` (size 0, updatedAt null when missing);
 * - `GET /api/memory/files/:name` → `{name, content}` ('' when missing; 404 for any other name);
 * - `PUT /api/memory/files/:name` `{content}` → `{name, size}`: at most 256 KiB (413), written the way the
 *   memory code writes them (serialised with consolidations in this process, temp file + fsync + rename,
 *   0600), never through a symlink at the file's place (403);
 * - `GET /api/memory/history?limit=N&before=CURSOR` → `{entries, next?}`: `next` is the cursor of the
 *   following (older) page; entries are only ever appended, so a cursor stays valid as the file grows;
 * - `GET /api/memory/search?q=…&limit=N&since=YYYY-MM-DD&until=YYYY-MM-DD` → `{results}` (with an embedding
 *   model configured, keywords and meaning fused; each result then says how it matched: `match`).
 */
export function memoryRoutes(options: MemoryRouteOptions): Hono {
  const app = new Hono();
  app.get('/api/memory', async (c) => {
    const workspace = options.workspace();
    const files = await Promise.all(
      MEMORY_FILES.map(async (name) => {
        const info = await lstat(join(workspace, name)).catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
          throw error;
        });
        if (!info) return { name, size: 0, updatedAt: null };
        const refused = refusal(name, info);
        return refused
          ? { name, size: 0, updatedAt: null, problem: refused }
          : { name, size: info.size, updatedAt: Math.round(info.mtimeMs) };
      }),
    );
    return c.json({ files } satisfies Api.MemoryFileList);
  });

  app.get('/api/memory/files/*', async (c) => {
    const name = memoryFileName(c);
    if (!name) return noSuchFile(c);
    const read = await readMemoryFile(options.workspace(), name);
    if (read.kind === 'refused') return c.json(problem('forbidden', read.message), 403);
    return c.json({ name, content: read.kind === 'file' ? read.text : '' } satisfies Api.MemoryFileContent);
  });

  // JSON escapes can make a string up to 6× longer than its UTF-8 bytes: a larger body is surely too large.
  app.put('/api/memory/files/*', limitBody(MAX_MEMORY_FILE_BYTES * 6 + 1024), async (c) => {
    const name = memoryFileName(c);
    if (!name) return noSuchFile(c);
    const parsed = await validBody(c, fileBody);
    if (!parsed.ok) return parsed.response;
    const { content } = parsed.value;
    const size = Buffer.byteLength(content, 'utf8');
    if (size > MAX_MEMORY_FILE_BYTES)
      return c.json(
        problem(
          'too_large',
          `${name} would be ${size} bytes; the API writes at most ${MAX_MEMORY_FILE_BYTES} (256 KiB).`,
        ),
        413,
      );
    const path = join(options.workspace(), name);
    const existing = await lstat(path).catch(() => undefined);
    const refused = existing && refusal(name, existing);
    if (refused) return c.json(problem('forbidden', refused), 403);
    // The same writer consolidation uses: queued behind a consolidation of this file in this process, and a
    // temp file renamed over the name — a symlink planted there meanwhile is replaced, never written through.
    await updateMarkdownFile(path, () => content);
    options.onEdit?.({ name, size });
    return c.json({ name, size } satisfies Api.MemoryFileWritten);
  });

  app.get('/api/memory/history', historyPage(options));

  app.get('/api/memory/search', searchHandler(options));
  return app;
}
