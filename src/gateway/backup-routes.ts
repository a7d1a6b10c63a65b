import { mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Readable } from 'node:stream';
import type { Context } from 'hono';
import { Hono } from 'hono';
import type { BackupFailure, BackupService } from '../services/backup-service.js';
import { failureResponse } from './failure-response.js';
import { problem } from './problem.js';

export interface BackupRouteOptions {
  /** The home's backup service (the one `wren backup` and scheduled backups use). */
  backups: Pick<BackupService, 'create'>;
  /** Told of each download as it starts: the archive's name and size, never its content. */
  onDownload?: (download: { file: string; bytes: number }) => void;
  /** Where the archive is made before it is sent (default: the system's temp folder). */
  tempDir?: string;
}

/** The answer to a backup that could not be made: the service's refusal, 409 busy or 500 backup_failed. */
function refused(c: Context, failure: BackupFailure): Response {
  switch (failure.code) {
    case 'busy':
      return c.json(problem('busy', failure.error), 409);
    case 'damaged':
    case 'failed':
      return c.json(problem('backup_failed', `The backup could not be made: ${failure.error}`), 500);
    default:
      return failureResponse(c, failure);
  }
}

/**
 * `GET /api/backup` → the home as a `wren-<stamp>.tar.gz` download (`application/gzip`, `Cache-Control:
 * no-store`): the archive `wren backup` writes, never with secrets (`.env`, tokens and files holding a
 * configured secret value are left out; `wren backup --with-secrets` is the deliberate way to include them).
 *
 * The archive is made in a private temp folder, not in `backup.to`: a download is the browser's copy, and
 * must not count among (or be pruned as) the home's own backups. The file is opened and then deleted at
 * once, before a byte is sent, so nothing is left behind whether the download completes, the client aborts
 * or the process dies; its space is freed when the stream closes. One backup is made at a time: a request
 * while one is being made answers 409 `busy` (a second archive would only double the disk and the wait).
 */
export function backupRoutes(options: BackupRouteOptions): Hono {
  const app = new Hono();
  let making = false;

  app.get('/api/backup', async (c) => {
    if (making)
      return c.json(problem('busy', 'A backup is being made already; try again when it is done.'), 409);
    making = true;
    const folder = mkdtempSync(join(options.tempDir ?? tmpdir(), 'wren-download-'));
    try {
      const made = await options.backups.create({ to: folder, withSecrets: false });
      if (!made.ok) return refused(c, made);
      const handle = await open(made.file, 'r');
      const { size } = await handle.stat();
      const file = basename(made.file);
      options.onDownload?.({ file, bytes: size });
      // The stream closes the handle when it ends or is cancelled (an aborted download).
      const body = Readable.toWeb(handle.createReadStream()) as ReadableStream<Uint8Array>;
      return new Response(body, {
        headers: {
          'content-type': 'application/gzip',
          'content-length': String(size),
          'content-disposition': `attachment; filename="${file}"`,
          'cache-control': 'no-store',
        },
      });
    } finally {
      rmSync(folder, { recursive: true, force: true });
      making = false;
    }
  });
  return app;
}
