import { basename } from 'node:path';
import { Readable } from 'node:stream';
import type { Hono } from 'hono';
import { openFileForRead } from '../tools/open-file-for-read.js';
import { PathError } from '../tools/path-error.js';
import { resolveInRoots } from '../tools/workspace-path.js';
import { problem } from './problem.js';

/**
 * `GET /api/files/<path>`: downloads a file inside the roots (the workspace first), resolved and opened the
 * way the file tools read (no symlink followed after the check, no file with several hard links); anything
 * outside is 403, a missing file 404.
 */
export function registerFileRoutes(app: Hono, fileRoots?: () => string[]): void {
  app.get('/api/files/*', async (c) => {
    const roots = fileRoots?.();
    const relative = decodeURIComponent(c.req.path.slice('/api/files/'.length));
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
        'content-disposition': `attachment; filename="${basename(relative).replace(/["\\\r\n]/g, '_')}"`,
      },
    });
  });
}
