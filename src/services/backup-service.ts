import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { ArchiveError, fileStamp } from '../backup/archive-error.js';
import type { RestoredHome } from '../backup/restore-home.js';
import type { TakenBackup } from '../backup/take-backup.js';
import type { BackupConfig } from '../config/operations-config.js';
import { HomeLockedError } from '../store/home-lock.js';
import type { Stores } from '../store/open-stores.js';
import { StoreError } from '../util/store-error.js';
import { invalid, notFound, type ServiceFailure } from './service-failure.js';

export type { RestoredHome, TakenBackup };

/**
 * A backup or restore refused: `busy` (a gateway holds the home), `damaged` (the archive is truncated,
 * corrupted, hand-edited or unsafe), `failed` (the disk or the database said no), or a ServiceFailure.
 */
export type BackupFailure =
  | ServiceFailure
  | { ok: false; code: 'busy' | 'damaged' | 'failed'; error: string };
export type BackupResult = ({ ok: true } & TakenBackup) | BackupFailure;
export type RestoreResult = ({ ok: true } & RestoredHome) | BackupFailure;

/** Names of the archives scheduled backups write (and prune); `wren backup` writes `wren-<stamp>.tar.gz`. */
const SCHEDULED = /^wren-scheduled-\d{8}-\d{6}(-\d+)?\.tar\.gz$/;

export interface BackupServiceDeps {
  home: string;
  stores: Pick<Stores, 'backup'>;
  /** The configuration in force: the workspace and `backup:`. */
  config: () => { workspace: string; backup: BackupConfig };
  /** Every configured secret value (kept out of an archive without secrets). */
  secrets: () => readonly string[];
  wrenVersion: string;
  now?: () => number;
}

export interface BackupRequest {
  /** A file, or an existing folder to write the default name in; default `backup.to` (`<home>/backups`). */
  to?: string;
  withSecrets?: boolean;
  /** A scheduled backup: named `wren-scheduled-<stamp>.tar.gz`, the names `prune` removes. */
  scheduled?: boolean;
}

/** `wren backup`, scheduled backups and the web app's download: one archive of the home. */
export interface BackupService {
  create(request?: BackupRequest): Promise<BackupResult>;
  /** Deletes the oldest scheduled archives in `backup.to` beyond `keep`. @returns the files deleted. */
  prune(keep?: number): string[];
}

function destination(deps: BackupServiceDeps, request: BackupRequest, now: number): string | ServiceFailure {
  const name = `wren-${request.scheduled ? 'scheduled-' : ''}${fileStamp(now)}`;
  const folder = request.to ? resolve(request.to) : deps.config().backup.dir;
  const isFolder = !request.to || (existsSync(folder) && statSync(folder).isDirectory());
  if (!isFolder) {
    if (existsSync(folder)) return invalid(`${folder} exists; give another file name`, 'to');
    if (!existsSync(resolve(folder, '..'))) return invalid(`${resolve(folder, '..')} does not exist`, 'to');
    return folder;
  }
  for (let n = 0; ; n++) {
    const file = join(folder, `${name}${n ? `-${n}` : ''}.tar.gz`);
    if (!existsSync(file)) return file;
  }
}

const failedWith = (error: unknown): BackupFailure => {
  if (error instanceof HomeLockedError) return { ok: false, code: 'busy', error: error.message };
  if (error instanceof ArchiveError)
    return { ok: false, code: 'damaged', error: `Refused: ${error.message}. Nothing was changed.` };
  if (error instanceof StoreError)
    return { ok: false, code: 'damaged', error: `Refused: ${error.message}. Nothing was changed.` };
  return { ok: false, code: 'failed', error: error instanceof Error ? error.message : String(error) };
};

export function createBackupService(deps: BackupServiceDeps): BackupService {
  const now = deps.now ?? Date.now;
  return {
    async create(request = {}) {
      const at = now();
      const dest = destination(deps, request, at);
      if (typeof dest !== 'string') return dest;
      const config = deps.config();
      try {
        // The archive code (tar, hashing) loads on first use: the gateway starts without it.
        const { takeBackup } = await import('../backup/take-backup.js');
        const taken = await takeBackup({
          home: deps.home,
          workspace: config.workspace,
          dest,
          withSecrets: request.withSecrets === true,
          secrets: deps.secrets(),
          backupDatabase: (path) => deps.stores.backup(path),
          wrenVersion: deps.wrenVersion,
          now: at,
          exclude: relative(deps.home, config.backup.dir).startsWith('..') ? [] : [config.backup.dir],
        });
        return { ok: true, ...taken };
      } catch (error) {
        return failedWith(error);
      }
    },
    prune(keep = deps.config().backup.keep) {
      const folder = deps.config().backup.dir;
      if (!existsSync(folder)) return [];
      const old = readdirSync(folder)
        .filter((name) => SCHEDULED.test(name))
        .sort()
        .reverse()
        .slice(Math.max(0, keep));
      for (const name of old) rmSync(join(folder, name), { force: true });
      return old.map((name) => join(folder, name));
    },
  };
}

/**
 * `wren restore FILE`: see restoreHome. Refused (`busy`) while a gateway holds the home, (`damaged`) for an
 * archive that is not intact, (`not_found`) for a missing file; nothing is changed then.
 */
export async function restoreBackup(home: string, file: string, now = Date.now()): Promise<RestoreResult> {
  const path = resolve(file);
  if (!existsSync(path) || !statSync(path).isFile()) return notFound(`There is no backup file ${path}.`);
  try {
    const { restoreHome } = await import('../backup/restore-home.js');
    return { ok: true, ...(await restoreHome(home, path, now)) };
  } catch (error) {
    return failedWith(error);
  }
}
