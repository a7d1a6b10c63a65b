import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { inspectDatabaseFile } from '../store/backup-database.js';
import { acquireHomeLock, type HomeLock } from '../store/home-lock.js';
import { SCHEMA_VERSION } from '../store/migrations.js';
import { checkDatabaseFile } from '../store/open-database.js';
import type { DatabaseSnapshot } from '../store/ports.js';
import { ArchiveError, fileStamp } from './archive-error.js';
import { type BackupManifest, DATABASE_NAME } from './backup-manifest.js';
import { extractArchive, verifyArchive } from './read-archive.js';

/** What a restore did. */
export interface RestoredHome {
  home: string;
  manifest: BackupManifest;
  database: DatabaseSnapshot;
  /** Where the home that was there before went (absent when there was none). */
  aside?: string;
  /** Secret files kept from the previous home because the archive had none (`.env` …). */
  carried: string[];
}

export { fileStamp };

/** Takes the home's start-up and scheduler locks, so no gateway or chat runs on it meanwhile. */
function lockHome(home: string): HomeLock[] {
  const main = acquireHomeLock(home);
  try {
    return [main, acquireHomeLock(home, 'scheduler.lock')];
  } catch (error) {
    main.release();
    throw error;
  }
}

function unlock(locks: readonly HomeLock[], folder?: string): void {
  for (const lock of locks) {
    lock.release();
    // A lock moved aside with its home is ours and stale: remove it there too.
    if (folder) rmSync(join(folder, basename(lock.path)), { force: true });
  }
}

/**
 * Copies the files the archive left out for holding secrets (`.env`, push keys, a config.yaml with a literal
 * key) from the previous home into the restored one, where it lacks them. Links and folders are not copied.
 */
function carrySecrets(manifest: BackupManifest, from: string, to: string): string[] {
  const carried: string[] = [];
  for (const path of manifest.leftOut) {
    const source = join(from, path);
    const target = join(to, path);
    if (existsSync(target) || !existsSync(source) || !lstatSync(source).isFile()) continue;
    mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
    copyFileSync(source, target);
    chmodSync(target, 0o600);
    carried.push(path);
  }
  return carried;
}

/** Unpacks and checks the archive in `staging`; throws ArchiveError (or StoreError) with what is wrong. */
async function stage(
  file: string,
  staging: string,
): Promise<{ manifest: BackupManifest; database: DatabaseSnapshot }> {
  const manifest = await verifyArchive(file);
  if (manifest.schemaVersion > SCHEMA_VERSION)
    throw new ArchiveError(
      `the backup has schema version ${manifest.schemaVersion}, but this Wren only knows versions up to ` +
        `${SCHEMA_VERSION}; upgrade Wren before restoring it`,
    );
  mkdirSync(staging, { mode: 0o700 });
  await extractArchive(file, staging, manifest);
  const database = inspectDatabaseFile(join(staging, DATABASE_NAME));
  if (
    database.schemaVersion !== manifest.schemaVersion ||
    JSON.stringify(database.counts) !== JSON.stringify(manifest.counts)
  )
    throw new ArchiveError(
      'the database in the archive does not match its manifest (schema version or rows differ)',
    );
  return { manifest, database };
}

/**
 * Restores `home` from the archive `file`: takes the home's locks (refused while a gateway or chat holds
 * it), verifies the whole archive before touching anything, unpacks it into `<home>.restoring-<stamp>` and
 * checks the database there (integrity_check, schema not newer than this Wren, rows as the manifest says);
 * only then moves the current home to `<home>.before-restore-<stamp>` and the restored one into its place,
 * and opens its database as `wren start` would (migrating an older schema). If that fails the previous home
 * is moved back. The files the archive left out for holding secrets (`.env` …) are kept from the previous home.
 * @throws HomeLockedError, ArchiveError or StoreError; the home is as it was then.
 */
export async function restoreHome(home: string, file: string, now: number): Promise<RestoredHome> {
  const stamp = fileStamp(now);
  const staging = `${home}.restoring-${stamp}`;
  const present = existsSync(home);
  if (!present && !existsSync(dirname(home))) throw new ArchiveError(`${dirname(home)} does not exist`);
  const locks = present ? lockHome(home) : [];
  let aside: string | undefined;
  try {
    const { manifest, database } = await stage(file, staging).catch((error: unknown) => {
      rmSync(staging, { recursive: true, force: true });
      throw error;
    });
    const carried = present ? carrySecrets(manifest, home, staging) : [];
    mkdirSync(join(staging, 'logs'), { recursive: true, mode: 0o700 });
    if (present) {
      aside = `${home}.before-restore-${stamp}`;
      renameSync(home, aside);
    }
    renameSync(staging, home);
    try {
      checkDatabaseFile(join(home, DATABASE_NAME));
    } catch (error) {
      renameSync(home, `${home}.failed-restore-${stamp}`);
      if (aside) renameSync(aside, home);
      aside = undefined;
      throw error;
    }
    return { home, manifest, database, ...(aside ? { aside } : {}), carried };
  } finally {
    unlock(locks, aside);
  }
}
