import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import type { Hono } from 'hono';
import { resolveWorkspacePath } from '../tools/workspace-path.js';
import { problem } from './problem.js';

/**
 * `GET /api/files/<path>`: downloads a file inside the roots (the workspace first), resolved like the file
 * tools resolve paths (symlinks included); anything outside is 403, a missing file 404.
 */
export function registerFileRoutes(app: Hono, fileRoots?: () => string[]): void {
  app.get('/api/files/*', async (c) => {
    const roots = fileRoots?.();
    const relative = decodeURIComponent(c.req.path.slice('/api/files/'.length));
    if (!roots || !relative) return c.json(problem('not_found', 'No such file.'), 404);
    let path: string;
    try {
      path = await resolveWorkspacePath(roots, relative);
    } catch (error) {
      return c.json(problem('forbidden', (error as Error).message), 403);
    }
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) return c.json(problem('not_found', `No file at ${relative}.`), 404);
    const stream = Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>;
    return new Response(stream, {
      headers: {
        'content-type': 'application/octet-stream',
        'content-length': String(info.size),
        'content-disposition': `attachment; filename="${basename(path).replace(/["\\\r\n]/g, '_')}"`,
      },
    });
  });
}
