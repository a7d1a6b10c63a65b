import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { type Context, Hono } from 'hono';

/** One file of the built app, held in memory with its gzip form. */
interface WebFile {
  body: Buffer;
  gzip?: Buffer;
  type: string;
  etag: string;
  /** Hashed build output: cached for a year. Everything else is revalidated on each load. */
  immutable: boolean;
}

/** Files larger than this are not held in memory (the app has none; a stray big file is not served). */
const MAX_FILE_BYTES = 5 * 1024 * 1024;

/**
 * Content-Security-Policy of the app's pages: scripts and styles only from the app itself, API calls and the
 * WebSocket only to this origin, images also from data:/blob: (pasted and uploaded pictures), no framing.
 */
export const APP_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Where the built app is: dist/web beside dist/gateway, or (running from source) the repository's dist/web. */
export function defaultWebRoot(): string | undefined {
  const candidates = [new URL('../web/', import.meta.url), new URL('../../dist/web/', import.meta.url)];
  for (const candidate of candidates) {
    const path = fileURLToPath(candidate);
    if (existsSync(join(path, 'index.html'))) return path;
  }
  return undefined;
}

async function loadFiles(root: string): Promise<Map<string, WebFile>> {
  const { getMimeType } = await import('hono/utils/mime');
  const files = new Map<string, WebFile>();
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      // Only plain files and folders of the build: a symlink in dist/web is never followed.
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && statSync(path).size <= MAX_FILE_BYTES) {
        const body = readFileSync(path);
        const name = `/${relative(root, path).split(sep).join('/')}`;
        const type = getMimeType(name) ?? 'application/octet-stream';
        const compressible = /^(text\/|application\/(json|manifest\+json|javascript)|image\/svg)/.test(type);
        const gzip = compressible && body.length > 512 ? gzipSync(body, { level: 9 }) : undefined;
        files.set(name, {
          body,
          ...(gzip && gzip.length < body.length ? { gzip } : {}),
          type,
          etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
          immutable: name.startsWith('/assets/'),
        });
      }
    }
  };
  walk(root);
  return files;
}

function respond(c: Context, file: WebFile, isPage: boolean): Response {
  c.header('Content-Type', file.type);
  c.header('ETag', file.etag);
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Vary', 'Accept-Encoding');
  c.header('Cache-Control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
  if (isPage) {
    c.header('Content-Security-Policy', APP_CSP);
    c.header('Referrer-Policy', 'no-referrer');
    c.header('X-Frame-Options', 'DENY');
  }
  if (c.req.header('if-none-match') === file.etag) return c.body(null, 304);
  const gzip = file.gzip && /\bgzip\b/.test(c.req.header('accept-encoding') ?? '') ? file.gzip : undefined;
  if (gzip) c.header('Content-Encoding', 'gzip');
  const body = gzip ?? file.body;
  c.header('Content-Length', String(body.length));
  if (c.req.method === 'HEAD') return c.body(null, 200);
  return c.body(new Uint8Array(body), 200);
}

/**
 * Serves the built web app (dist/web, made by `npm run build`) at `/`: only files that are part of the
 * build, loaded into memory on the first request (about 100 KB), gzipped once. Hashed `/assets/*` are
 * immutable; index.html, the service worker and the manifest are revalidated by ETag. Any other path that
 * is not a file and not under /api or /v1 (a client-side route) gets index.html.
 */
export function webAppRoutes(root: string | undefined = defaultWebRoot()): Hono {
  const app = new Hono();
  let files: Promise<Map<string, WebFile>> | undefined;
  const load = () => {
    files ??= (root ? loadFiles(root) : Promise.resolve(new Map<string, WebFile>())).catch(
      (error: unknown) => {
        files = undefined; // a build being rewritten: the next request reads it again
        throw error;
      },
    );
    return files;
  };
  app.on(['GET', 'HEAD'], '*', async (c, next) => {
    const path = c.req.path;
    if (path.startsWith('/api/') || path === '/api' || path === '/ws') return next();
    if (path.startsWith('/v1/') || path === '/v1') return next();
    const all = await load();
    const file = all.get(path);
    if (file) return respond(c, file, path.endsWith('.html'));
    const index = all.get('/index.html');
    // A missing asset is a 404, never the page: a stale tab must not execute HTML as a script.
    if (path.startsWith('/assets/') || /\.[a-z0-9]+$/i.test(path)) return next();
    if (!index) {
      c.header('Cache-Control', 'no-store');
      return c.text('The web app is not built. Run `npm run build` in the Wren folder, then reload.', 503);
    }
    return respond(c, index, true);
  });
  return app;
}
