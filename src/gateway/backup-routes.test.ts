import { existsSync, mkdirSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { serve } from '@hono/node-server';
import { list } from 'tar';
import { describe, expect, it } from 'vitest';
import { routeHarness } from '../../test/support/route-harness.js';
import { MemorySessionStore } from '../agent/memory-session-store.js';
import { MANIFEST_NAME } from '../backup/backup-manifest.js';
import { MessageBus } from '../bus/message-bus.js';
import { HttpChannel } from '../channels/http/http-channel.js';
import { type BackupResult, type BackupService, createBackupService } from '../services/backup-service.js';
import { openStoresAt } from '../store/open-stores.js';
import { backupRoutes } from './backup-routes.js';
import { createGateway } from './create-gateway.js';

const TOKEN = 'the-owner-token-0123456789abcdef';
const SECRET = 'sk-dotenv-SECRET-value-7731';
const harness = routeHarness();

/** A home with config, a workspace note, a `.env` secret and a database holding a memo. */
function home() {
  const root = harness.folder('wren-backup-route-');
  const dir = join(root, 'home');
  mkdirSync(join(dir, 'workspace'), { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, 'config.yaml'), 'agent:\n  timezone: UTC\n');
  writeFileSync(join(dir, '.env'), `OPENAI_API_KEY=${SECRET}\n`);
  writeFileSync(join(dir, 'workspace', 'MEMORY.md'), '# Memory\nLikes tea.\n');
  writeFileSync(join(dir, 'workspace', 'pasted.md'), `the key is ${SECRET}\n`);
  const stores = openStoresAt(join(dir, 'wren.db'));
  stores.memos.add('a memo to keep');
  return { dir, stores };
}

function gateway(backups: Pick<BackupService, 'create'>) {
  const downloads: Array<{ file: string; bytes: number }> = [];
  const temp = harness.folder('wren-backup-temp-');
  const app = createGateway({
    channel: new HttpChannel({ bus: new MessageBus() }),
    sessions: new MemorySessionStore(),
    verifyToken: (token) => token === TOKEN,
    status: () => ({ up: true }),
    version: '1.0.0',
    startedAt: 0,
    // Mounted as the app mounts it: a lazy group behind the token check.
    lazyRoutes: {
      matches: (path) => path === '/api/backup',
      load: async () => backupRoutes({ backups, tempDir: temp, onDownload: (d) => downloads.push(d) }),
    },
  });
  const get = (token = TOKEN) =>
    app.request(
      'http://127.0.0.1/api/backup',
      token ? { headers: { authorization: `Bearer ${token}` } } : {},
    );
  return { app, get, temp, downloads };
}

function realService() {
  const { dir, stores } = home();
  const service = createBackupService({
    home: dir,
    stores,
    config: () => ({ workspace: join(dir, 'workspace'), backup: { keep: 3, dir: join(dir, 'backups') } }),
    secrets: () => [SECRET],
    wrenVersion: '0.0.0-test',
  });
  return { dir, stores, service };
}

/** How many files this process holds open that were archives of a download (deleted ones included). */
function openArchives(): number {
  if (!existsSync('/proc/self/fd')) return 0;
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(join('/proc/self/fd', fd)).includes('wren-download-');
    } catch {
      return false;
    }
  }).length;
}

async function until(check: () => boolean): Promise<void> {
  for (let tries = 0; !check(); tries++) {
    if (tries > 200) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function entries(archive: Buffer): Promise<string[]> {
  const names: string[] = [];
  const file = join(harness.folder('wren-backup-list-'), 'download.tar.gz');
  writeFileSync(file, archive);
  await list({ file, onReadEntry: (entry) => names.push(entry.path) });
  return names;
}

describe('GET /api/backup', () => {
  it('sends the home as a gzip tar without secrets, leaves no temp file and logs only name and size', async () => {
    const { dir, stores, service } = realService();
    const { get, temp, downloads } = gateway(service);
    try {
      const response = await get();
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/gzip');
      expect(response.headers.get('cache-control')).toBe('no-store');
      const disposition = response.headers.get('content-disposition') ?? '';
      expect(disposition).toMatch(/^attachment; filename="wren-\d{8}-\d{6}(-\d+)?\.tar\.gz"$/);
      const body = Buffer.from(await response.arrayBuffer());
      expect(Number(response.headers.get('content-length'))).toBe(body.length);

      const names = await entries(body);
      expect(names).toEqual(expect.arrayContaining([MANIFEST_NAME, 'wren.db', 'config.yaml']));
      expect(names.some((name) => name.endsWith('MEMORY.md'))).toBe(true);
      expect(names).not.toContain('.env');
      expect(names.some((name) => name.endsWith('pasted.md'))).toBe(false);
      expect(gunzipSync(body).toString('latin1')).not.toContain(SECRET);

      expect(readdirSync(temp)).toEqual([]);
      expect(readdirSync(dir)).not.toContain('backups');
      expect(downloads).toEqual([{ file: disposition.split('"')[1], bytes: body.length }]);
      expect(JSON.stringify(downloads)).not.toContain(SECRET);
    } finally {
      stores.close();
    }
  });

  it('refuses a request without the token, or with a wrong one, and makes no backup', async () => {
    let made = 0;
    const { get } = gateway({
      create: async () => {
        made++;
        return { ok: false, code: 'failed', error: 'not expected' };
      },
    });
    expect((await get('')).status).toBe(401);
    expect((await get('wrong-token-0123456789abcdef')).status).toBe(401);
    expect(made).toBe(0);
  });

  it('makes one backup at a time: a second request meanwhile gets 409 busy', async () => {
    const { service, stores } = realService();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { get, temp } = gateway({
      create: async (request) => {
        await held;
        return service.create(request);
      },
    });
    try {
      const first = get();
      await new Promise((resolve) => setTimeout(resolve, 20));
      const second = await get();
      expect(second.status).toBe(409);
      expect(await second.json()).toEqual({
        error: { code: 'busy', message: expect.stringMatching(/already/) },
      });
      release();
      const answer = await first;
      expect(answer.status).toBe(200);
      await answer.arrayBuffer();
      expect((await get()).status).toBe(200);
      expect(readdirSync(temp)).toEqual([]);
    } finally {
      stores.close();
    }
  });

  it('answers a failed backup as problem JSON and cleans up', async () => {
    const answers: BackupResult[] = [
      { ok: false, code: 'failed', error: 'ENOSPC: no space left on device' },
      { ok: false, code: 'busy', error: 'The home is locked.' },
      { ok: false, code: 'invalid', error: 'somewhere exists', field: 'to' },
    ];
    const { get, temp } = gateway({ create: async () => answers.shift()! });
    const failed = await get();
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({
      error: {
        code: 'backup_failed',
        message: 'The backup could not be made: ENOSPC: no space left on device',
      },
    });
    expect((await get()).status).toBe(409);
    expect((await get()).status).toBe(400);
    expect(readdirSync(temp)).toEqual([]);
  });

  it('leaves nothing behind when the client aborts mid-download', async () => {
    const { dir, service, stores } = realService();
    // Enough incompressible bytes that the archive cannot leave in one write.
    const noise = Buffer.alloc(2 * 1024 * 1024);
    for (let at = 0; at < noise.length; at += 4) noise.writeUInt32LE((Math.random() * 2 ** 32) >>> 0, at);
    writeFileSync(join(dir, 'workspace', 'noise.bin'), noise);
    const { app, temp } = gateway(service);
    const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const abort = new AbortController();
      const response = await fetch(`http://127.0.0.1:${port}/api/backup`, {
        headers: { authorization: `Bearer ${TOKEN}` },
        signal: abort.signal,
      });
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      expect((await reader.read()).done).toBe(false);
      // The archive is already unlinked while it is still being sent.
      expect(readdirSync(temp)).toEqual([]);
      abort.abort();
      await reader.read().catch(() => undefined);
      // The aborted stream closes the archive's handle (its space is freed then).
      await until(() => openArchives() === 0);
      // The gateway keeps serving after the abort.
      const next = await fetch(`http://127.0.0.1:${port}/api/backup`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(next.status).toBe(200);
      await next.arrayBuffer();
      expect(readdirSync(temp)).toEqual([]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      stores.close();
    }
  });
});
