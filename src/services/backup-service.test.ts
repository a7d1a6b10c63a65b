import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { create, extract } from 'tar';
import { afterEach, describe, expect, it } from 'vitest';
import { MANIFEST_NAME } from '../backup/backup-manifest.js';
import { rawTarGz } from '../backup/test-support/raw-tar.js';
import { acquireHomeLock } from '../store/home-lock.js';
import { openStoresAt, type Stores } from '../store/open-stores.js';
import { createBackupService, restoreBackup } from './backup-service.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

const SECRET = 'sk-test-SECRET-value-4242';
const LITERAL = 'literal-key-in-config-9876';

function makeHome(configText = 'agent:\n  timezone: UTC\n') {
  const root = mkdtempSync(join(tmpdir(), 'wren-backup-'));
  const home = join(root, 'home');
  mkdirSync(join(home, 'workspace', 'memory'), { recursive: true, mode: 0o700 });
  writeFileSync(join(home, 'config.yaml'), configText);
  writeFileSync(join(home, 'jobs.yaml'), 'jobs: []\n');
  writeFileSync(join(home, 'mcp.json'), '{"servers":{}}\n');
  writeFileSync(join(home, '.env'), `OPENAI_API_KEY=${SECRET}\n`);
  writeFileSync(join(home, 'push-vapid.json'), '{"privateKey":"vapid-private"}\n');
  writeFileSync(join(home, 'workspace', 'MEMORY.md'), '# Memory\nLikes tea.\n');
  writeFileSync(join(home, 'workspace', 'memory', 'HISTORY.md'), 'history\n');
  const open = () => openStoresAt(join(home, 'wren.db'));
  let stores: Stores = open();
  stores.memos.add('first memo');
  cleanups.push(() => {
    stores.close();
    rmSync(root, { recursive: true, force: true });
  });
  const service = () =>
    createBackupService({
      home,
      stores: { backup: (dest) => stores.backup(dest) },
      config: () => ({ workspace: join(home, 'workspace'), backup: { keep: 2, dir: join(home, 'backups') } }),
      secrets: () => [SECRET, LITERAL, 'vapid-private'],
      wrenVersion: '0.1.0-test',
    });
  return {
    root,
    home,
    service,
    stores: () => stores,
    reopen() {
      stores.close();
      stores = open();
      return stores;
    },
  };
}

/** Every byte of the archive, decompressed, as text (what a grep of the archive sees). */
const unpacked = (file: string) => gunzipSync(readFileSync(file)).toString('latin1');
const digest = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

async function backupOf(home: ReturnType<typeof makeHome>, withSecrets = false) {
  const made = await home.service().create({ withSecrets });
  if (!made.ok) throw new Error(made.error);
  return made;
}

/** A copy of the archive with its files unpacked, changed by `edit`, and packed again (manifest as it was). */
async function repacked(file: string, edit: (dir: string) => void): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'wren-repack-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const tree = join(dir, 'tree');
  mkdirSync(tree);
  await extract({ file, cwd: tree });
  edit(tree);
  const out = join(dir, 'edited.tar.gz');
  await create({ gzip: true, cwd: tree, file: out, portable: true }, readdirSync(tree));
  return out;
}

describe('backup service', () => {
  it('archives the home with the database, a manifest and no secrets, mode 0600', async () => {
    const home = makeHome(`agent:\n  timezone: UTC\n`);
    const made = await backupOf(home);
    expect(made.file).toMatch(/backups\/wren-\d{8}-\d{6}\.tar\.gz$/);
    expect(statSync(made.file).mode & 0o777).toBe(0o600);
    const paths = made.manifest.files.map((file) => file.path).sort();
    expect(paths).toEqual(
      [
        'config.yaml',
        'jobs.yaml',
        'mcp.json',
        'workspace/MEMORY.md',
        'workspace/memory/HISTORY.md',
        'wren.db',
      ].sort(),
    );
    expect(made.manifest).toMatchObject({ formatVersion: 1, wrenVersion: '0.1.0-test', withSecrets: false });
    expect(made.manifest.counts['memos']).toBe(1);
    expect(made.manifest.leftOut.sort()).toEqual(['.env', 'push-vapid.json']);
    const text = unpacked(made.file);
    expect(text).toContain(MANIFEST_NAME);
    for (const secret of [SECRET, 'vapid-private']) expect(text).not.toContain(secret);
  });

  it('leaves out a file holding a configured secret literally, and includes everything with --with-secrets', async () => {
    const home = makeHome(`gateway:\n  token: ${LITERAL}\n`);
    const without = await backupOf(home);
    expect(without.leftOut.map((entry) => entry.path)).toContain('config.yaml');
    expect(unpacked(without.file)).not.toContain(LITERAL);
    const withAll = await backupOf(home, true);
    const text = unpacked(withAll.file);
    for (const secret of [SECRET, LITERAL, 'vapid-private']) expect(text).toContain(secret);
    expect(statSync(withAll.file).mode & 0o777).toBe(0o600);
    expect(withAll.manifest.withSecrets).toBe(true);
  });

  it('restores the archive, keeps the previous home aside and carries its secrets over', async () => {
    const home = makeHome();
    const made = await backupOf(home);
    home.stores().memos.add('after the backup');
    writeFileSync(join(home.home, 'workspace', 'MEMORY.md'), 'changed\n');
    home.stores().close();
    const restored = await restoreBackup(home.home, made.file);
    expect(restored).toMatchObject({ ok: true, home: home.home });
    if (!restored.ok) return;
    expect(restored.carried.sort()).toEqual(['.env', 'push-vapid.json']);
    expect(readFileSync(join(home.home, 'workspace', 'MEMORY.md'), 'utf8')).toBe('# Memory\nLikes tea.\n');
    expect(readFileSync(join(home.home, '.env'), 'utf8')).toContain(SECRET);
    expect(home.reopen().memos.count()).toBe(1);
    expect(restored.aside).toMatch(/home\.before-restore-\d{8}-\d{6}$/);
    expect(readFileSync(join(restored.aside!, 'workspace', 'MEMORY.md'), 'utf8')).toBe('changed\n');
    expect(existsSync(join(restored.aside!, 'wren.lock'))).toBe(false);
    expect(existsSync(join(home.home, 'wren.lock'))).toBe(false);
    expect(statSync(home.home).mode & 0o777).toBe(0o700);
  });

  describe('refuses a bad archive and changes nothing', () => {
    async function refused(file: string, message: RegExp) {
      const home = makeHome();
      const before = digest(join(home.home, 'workspace', 'MEMORY.md'));
      home.stores().memos.add('second');
      const result = await restoreBackup(home.home, file);
      expect(result).toMatchObject({ ok: false, code: 'damaged' });
      if (!result.ok) expect(result.error).toMatch(message);
      expect(digest(join(home.home, 'workspace', 'MEMORY.md'))).toBe(before);
      expect(home.stores().memos.count()).toBe(2);
      expect(readdirSync(home.root).sort()).toEqual(['home']);
    }

    it('truncated', async () => {
      const made = await backupOf(makeHome());
      const bytes = readFileSync(made.file);
      writeFileSync(made.file, bytes.subarray(0, Math.floor(bytes.length / 2)));
      await refused(made.file, /damaged or truncated|missing from the archive/);
    });

    it('corrupted (one byte flipped)', async () => {
      const made = await backupOf(makeHome());
      const bytes = readFileSync(made.file);
      const at = Math.floor(bytes.length / 2);
      bytes[at] = bytes[at]! ^ 0xff;
      writeFileSync(made.file, bytes);
      await refused(made.file, /damaged|SHA-256|bytes/);
    });

    it('hand-edited (a file changed, the manifest not)', async () => {
      const made = await backupOf(makeHome());
      const edited = await repacked(made.file, (tree) =>
        writeFileSync(join(tree, 'config.yaml'), 'evil: 1\n'),
      );
      await refused(edited, /config\.yaml .*(SHA-256|bytes)/);
    });

    it('with a file the manifest does not list', async () => {
      const made = await backupOf(makeHome());
      const edited = await repacked(made.file, (tree) => writeFileSync(join(tree, 'extra.txt'), 'x'));
      await refused(edited, /extra\.txt is in the archive but not in its manifest/);
    });

    it('with a newer schema version', async () => {
      const made = await backupOf(makeHome());
      const edited = await repacked(made.file, (tree) => {
        const manifest = JSON.parse(readFileSync(join(tree, MANIFEST_NAME), 'utf8'));
        writeFileSync(join(tree, MANIFEST_NAME), JSON.stringify({ ...manifest, schemaVersion: 9999 }));
      });
      await refused(edited, /schema version 9999.*upgrade Wren/);
    });

    it('without a manifest, or not an archive at all', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'wren-raw-'));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      writeFileSync(join(dir, 'plain.tar.gz'), rawTarGz([{ name: 'wren.db', body: 'x' }]));
      await refused(join(dir, 'plain.tar.gz'), /no wren-backup\.json/);
      writeFileSync(join(dir, 'text.tar.gz'), 'hello');
      await refused(join(dir, 'text.tar.gz'), /damaged|not a Wren backup/);
    });

    it.each([
      ['a parent path', { name: '../escaped.txt', body: 'x' }, /outside its folder/],
      ['an absolute path', { name: '/tmp/wren-escaped.txt', body: 'x' }, /outside its folder/],
      ['a symlink out', { name: 'workspace/link', type: '2' as const, linkname: '/etc/passwd' }, /a link/],
      ['a hard link out', { name: 'workspace/hard', type: '1' as const, linkname: '../../x' }, /a link/],
    ])('with %s', async (_label, entry, message) => {
      const dir = mkdtempSync(join(tmpdir(), 'wren-raw-'));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      const file = join(dir, 'hostile.tar.gz');
      writeFileSync(file, rawTarGz([{ name: MANIFEST_NAME, body: '{}' }, entry]));
      await refused(file, message);
      expect(existsSync(join(dir, 'escaped.txt'))).toBe(false);
      expect(existsSync('/tmp/wren-escaped.txt')).toBe(false);
    });
  });

  it('refuses to restore while the home is held, and a missing file', async () => {
    const home = makeHome();
    const made = await backupOf(home);
    const lock = acquireHomeLock(home.home);
    cleanups.push(() => lock.release());
    const result = await restoreBackup(home.home, made.file);
    expect(result).toMatchObject({ ok: false, code: 'busy' });
    if (!result.ok) expect(result.error).toMatch(/in use by Wren process/);
    lock.release();
    expect(await restoreBackup(home.home, join(home.root, 'nope.tar.gz'))).toMatchObject({
      code: 'not_found',
    });
  });

  it('refuses a destination that exists, and prunes only scheduled archives beyond keep', async () => {
    const home = makeHome();
    const first = await backupOf(home);
    expect(await home.service().create({ to: first.file })).toMatchObject({ ok: false, code: 'invalid' });
    const dir = join(home.home, 'backups');
    for (const stamp of ['20250101-000000', '20250102-000000', '20250103-000000'])
      writeFileSync(join(dir, `wren-scheduled-${stamp}.tar.gz`), 'x');
    const pruned = home.service().prune();
    expect(pruned.map((path) => path.slice(dir.length + 1))).toEqual([
      'wren-scheduled-20250101-000000.tar.gz',
    ]);
    expect(existsSync(first.file)).toBe(true);
    const scheduled = await home.service().create({ scheduled: true });
    expect(scheduled.ok && scheduled.file).toMatch(/wren-scheduled-\d{8}-\d{6}\.tar\.gz$/);
    expect(scheduled.ok && scheduled.manifest.files.some((file) => file.path.startsWith('backups/'))).toBe(
      false,
    );
  });
});
