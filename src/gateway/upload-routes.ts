import { lstat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { INBOX_DIR, saveInboxFile } from '../channels/inbox-file.js';
import type * as Api from './api-types.js';
import { SESSION_ID } from './chat-routes.js';
import { problem } from './problem.js';

/** The largest file `POST /api/files` takes. */
export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;
/** What the multipart framing (boundaries, part headers, a session field) may add to the file's bytes. */
const MULTIPART_SLACK = 64 * 1024;

export interface UploadRouteOptions {
  /** The workspace folder (read per request: a config reload may move it); files land in its inbox. */
  workspace: () => string;
  /** Default MAX_UPLOAD_BYTES (tests lower it). */
  maxBytes?: number;
  clock?: () => Date;
  /** Told after a file was saved (for the log: its path and size, never its content). */
  onSaved?: (saved: { path: string; size: number; session?: string }) => void;
}

/** The download URL of a workspace-relative path: `GET /api/files/<path>`, each segment encoded. */
export function fileUrl(relative: string): string {
  return `/api/files/${relative.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * `POST /api/files`: multipart/form-data with exactly one `file` part (and an optional `session` field,
 * the conversation the file is meant for; it is checked, not stored) → `201 {name, path, size, url}`. The
 * file is saved the way chat channels save received files (`inbox/<date>-<safe name>` in the workspace,
 * never overwriting, never through a symlink), so the model finds uploads and channel files in one place;
 * `url` downloads it again. Over `maxBytes` (25 MB) → 413, refused while the body streams in.
 */
export function uploadRoutes(options: UploadRouteOptions): Hono {
  const app = new Hono();
  const maxBytes = options.maxBytes ?? MAX_UPLOAD_BYTES;
  const clock = options.clock ?? (() => new Date());
  const tooLarge = `The file is larger than ${maxBytes} bytes (${Math.round(maxBytes / 1024 / 1024)} MB), the most the API takes.`;

  app.post(
    '/api/files',
    bodyLimit({
      maxSize: maxBytes + MULTIPART_SLACK,
      onError: (c) => c.json(problem('too_large', tooLarge), 413),
    }),
    async (c) => {
      const type = c.req.header('content-type') ?? '';
      if (!/^multipart\/form-data\s*;/i.test(type))
        return c.json(
          problem('bad_request', 'Send the file as multipart/form-data with one part named "file".'),
          400,
        );
      let form: FormData;
      try {
        form = await c.req.formData();
      } catch {
        return c.json(problem('bad_request', 'The multipart body could not be read; send it again.'), 400);
      }
      const unknown = [...new Set(form.keys())].find((key) => key !== 'file' && key !== 'session');
      if (unknown !== undefined)
        return c.json(
          problem('bad_request', `Unexpected field "${unknown.slice(0, 40)}": only "file" and "session".`),
          400,
        );
      const files = form.getAll('file');
      const file = files[0];
      if (files.length !== 1 || !(file instanceof File))
        return c.json(
          problem('bad_request', 'Send exactly one part named "file", with a file name (a file, not text).'),
          400,
        );
      const sessions = form.getAll('session');
      const session = sessions[0];
      if (
        sessions.length > 1 ||
        (session !== undefined && (typeof session !== 'string' || !SESSION_ID.test(session)))
      )
        return c.json(problem('bad_request', 'session must be 1-128 letters, digits, _ . : -'), 400);
      if (file.size > maxBytes) return c.json(problem('too_large', tooLarge), 413);

      const workspace = options.workspace();
      // saveInboxFile refuses a symlinked inbox too; checking first answers 403 instead of a generic 500.
      const inbox = await lstat(join(workspace, INBOX_DIR)).catch(() => undefined);
      if (inbox?.isSymbolicLink())
        return c.json(
          problem(
            'forbidden',
            `The workspace's ${INBOX_DIR} folder is a symbolic link; Wren does not write through it.`,
          ),
          403,
        );
      if (inbox && !inbox.isDirectory())
        return c.json(
          problem('conflict', `The workspace's ${INBOX_DIR} is a file, not a folder; move it away.`),
          409,
        );
      const bytes = new Uint8Array(await file.arrayBuffer());
      const path = await saveInboxFile(workspace, file.name, bytes, clock());
      options.onSaved?.({ path, size: bytes.length, ...(session ? { session } : {}) });
      const saved = { name: basename(path), path, size: bytes.length, url: fileUrl(path) };
      return c.json(saved satisfies Api.UploadedFile, 201);
    },
  );
  return app;
}
