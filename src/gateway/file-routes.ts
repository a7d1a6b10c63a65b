import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { Hono } from 'hono';
import { openFileForRead } from '../tools/fs/open-file-for-read.js';
import { PathError } from '../tools/fs/path-error.js';
import { resolveInRoots } from '../tools/fs/workspace-path.js';
import { problem } from './problem.js';

/** `text` percent-decoded, or undefined when it is no valid percent-encoding of UTF-8 (`%E0%A4%A`, `%ZZ`). */
function decodedPath(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/**
 * A `content-disposition` for downloading as `name` (RFC 6266): an ASCII `filename` for old clients and the
 * exact name as UTF-8 in `filename*` (header values are bytes: a non-Latin-1 name cannot go in as it is).
 */
function attachment(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const exact = encodeURIComponent(name).replace(
    /['()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${exact}`;
}

/**
 * `GET /api/files/<path>`: downloads a file inside the roots (the workspace first), resolved and opened the
 * way the file tools read (no symlink followed after the check, no file with several hard links); anything
 * outside is 403, a missing file 404, a path that is not valid percent-encoding 400.
 */
export function fileRoutes(fileRoots?: () => string[]): Hono {
  const app = new Hono();
  app.get('/api/files/*', async (c) => {
    const roots = fileRoots?.();
    const relative = decodedPath(c.req.path.slice('/api/files/'.length));
    if (relative === undefined) {
      const message =
        'The path is not valid percent-encoding; encode each segment as UTF-8 (encodeURIComponent).';
      return c.json(problem('bad_request', message), 400);
    }
    if (!roots || !relative) return c.json(problem('not_found', 'No such file.'), 404);
    let opened: Awaited<ReturnType<typeof openFileForRead>>;
    try {
      const resolved = await resolveInRoots(roots, relative);
      opened = await openFileForRead({ root: resolved.root, path: resolved.path, show: () => relative });
    } catch (error) {
      const missing =
        error instanceof PathError && (error.problem === 'missing' || error.problem === 'folder');
      return missing
        ? c.json(problem('not_found', `No file at ${relative}.`), 404)
        : c.json(problem('forbidden', (error as Error).message), 403);
    }
    const stream = Readable.toWeb(opened.handle.createReadStream()) as ReadableStream<Uint8Array>;
    return new Response(stream, {
      headers: {
        'content-type': 'application/octet-stream',
        'content-length': String(opened.info.size),
        'content-disposition': attachment(basename(relative)),
      },
    });
  });
  return app;
}
