import { lstatSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { secretFileName } from '../util/secret-file-names.js';
import { DATABASE_NAME, MANIFEST_NAME } from './backup-manifest.js';

/** One file of the home to put in an archive. */
export interface HomeFile {
  /** Where it is now. */
  source: string;
  /** Its path in the archive (and in the restored home), `/`-separated. */
  path: string;
  /** A file that holds secrets (`.env`, keys, tokens): archived only with `--with-secrets`. */
  secret: boolean;
}

/** What `collectHomeFiles` found: the files to archive and what it left out (and why), for the summary. */
export interface HomeFiles {
  files: HomeFile[];
  skipped: Array<{ path: string; reason: string }>;
}

/**
 * Never archived: the database and its journals (the database goes in through the backup API), lock and
 * runtime files of a running process (`gateway.json` holds this run's local token), temporary files.
 */
const RUNTIME = /^(wren\.db(-wal|-shm|-journal)?|[\w.-]+\.lock(\..*)?|gateway\.json|\.?[\w.-]*\.tmp)$/;
/** Top-level folders left out: logs (the gateway's own), earlier archives, staging folders of a backup. */
const LEFT_OUT_FOLDERS = new Set(['logs', 'backups', 'node_modules']);
/** Files of a home that hold secrets besides the names every tool treats as secret (`.env`, keys). */
const HOME_SECRETS = /^(push-vapid\.json|[\w.-]+\.token|[\w.-]*-token\.json)$/;

/** Whether a file of this name holds secrets (a home's `.env`, push keys, token files, key files). Pure. */
export function isSecretFile(name: string): boolean {
  return secretFileName(name) || HOME_SECRETS.test(name);
}

const toArchivePath = (path: string) => path.split(sep).join('/');

/**
 * The files of `home` a backup holds: every regular file of the home and its folders, except the runtime
 * files, logs and earlier backups, each marked secret or not; symbolic links and other special files are
 * left out (named in `skipped`), never followed. `workspace` (config.yaml's) is walked too, as `workspace/`,
 * when it lies outside the home. `exclude`: absolute folders or files also left out (the archive's own
 * folder). Reads only names and types.
 */
export function collectHomeFiles(
  home: string,
  options: { workspace?: string; exclude?: readonly string[] } = {},
): HomeFiles {
  const found: HomeFiles = { files: [], skipped: [] };
  const exclude = new Set(options.exclude ?? []);
  const walk = (dir: string, prefix: string, top: boolean) => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch (error) {
      found.skipped.push({
        path: prefix || '.',
        reason: (error as NodeJS.ErrnoException).code ?? 'unreadable',
      });
      return;
    }
    for (const name of names) {
      const source = join(dir, name);
      const path = `${prefix}${name}`;
      if (exclude.has(source)) continue;
      if (top && (RUNTIME.test(name) || LEFT_OUT_FOLDERS.has(name) || name === MANIFEST_NAME)) continue;
      if (top && name.startsWith('.wren-backup-')) continue;
      let info: ReturnType<typeof lstatSync>;
      try {
        info = lstatSync(source);
      } catch {
        continue; // gone since the listing
      }
      if (info.isSymbolicLink()) found.skipped.push({ path, reason: 'a symbolic link (not followed)' });
      else if (info.isDirectory()) walk(source, `${path}/`, false);
      else if (info.isFile()) found.files.push({ source, path, secret: isSecretFile(name) });
      else found.skipped.push({ path, reason: 'not a regular file' });
    }
  };
  walk(home, '', true);
  const workspace = options.workspace;
  if (workspace && relative(home, workspace).startsWith('..')) walk(workspace, 'workspace/', false);
  found.files = found.files.filter((file) => file.path !== DATABASE_NAME);
  return {
    files: found.files,
    skipped: found.skipped.map((entry) => ({ ...entry, path: toArchivePath(entry.path) })),
  };
}
