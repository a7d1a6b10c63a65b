import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { DatabaseSnapshot } from '../store/ports.js';
import { type BackupManifest, DATABASE_NAME, FORMAT_VERSION } from './backup-manifest.js';
import { collectHomeFiles } from './home-files.js';
import { describeStaged, secretsIn, writeArchive } from './write-archive.js';

export interface TakeBackupOptions {
  home: string;
  /** config.yaml's workspace (walked too when it lies outside the home). */
  workspace: string;
  /** The archive to write (must not exist). */
  dest: string;
  withSecrets: boolean;
  /** Every configured secret value: without `withSecrets`, a file holding one is left out. */
  secrets: readonly string[];
  /** Takes the database copy (the stores' online backup) into `dest`. */
  backupDatabase(dest: string): Promise<DatabaseSnapshot>;
  wrenVersion: string;
  now: number;
  /** Folders or files also left out (the scheduled backups' folder). */
  exclude?: readonly string[];
}

/** What a backup wrote. */
export interface TakenBackup {
  file: string;
  bytes: number;
  manifest: BackupManifest;
  database: DatabaseSnapshot;
  /** Files of the home not archived, and why (secrets without --with-secrets, links, special files). */
  leftOut: Array<{ path: string; reason: string }>;
  /** Things the owner should know (the database holds a configured secret value, e.g. pasted in a chat). */
  warnings: string[];
}

/**
 * Copies the home's files into a private staging folder beside `dest` (so the manifest's hashes are of the
 * bytes archived, even while a gateway keeps writing), takes the database through the online backup API,
 * leaves out secrets unless asked, writes the manifest and the archive (0600), and removes the staging
 * folder whatever happens. @throws the file-system or StoreError; nothing is left at `dest` then.
 */
export async function takeBackup(options: TakeBackupOptions): Promise<TakenBackup> {
  mkdirSync(dirname(options.dest), { recursive: true, mode: 0o700 });
  const staging = mkdtempSync(join(dirname(options.dest), '.wren-backup-'));
  try {
    const found = collectHomeFiles(options.home, {
      workspace: options.workspace,
      exclude: [dirname(options.dest), ...(options.exclude ?? [])],
    });
    const leftOut = [...found.skipped];
    const warnings: string[] = [];
    const staged: string[] = [];
    const secrets = options.withSecrets ? [] : options.secrets;
    for (const file of found.files) {
      if (file.secret && !options.withSecrets) {
        leftOut.push({ path: file.path, reason: 'holds secrets (use --with-secrets to include it)' });
        continue;
      }
      const target = join(staging, file.path);
      mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
      try {
        copyFileSync(file.source, target);
      } catch (error) {
        leftOut.push({ path: file.path, reason: `unreadable (${(error as NodeJS.ErrnoException).code})` });
        continue;
      }
      if (secretsIn(target, secrets)) {
        rmSync(target);
        leftOut.push({ path: file.path, reason: 'holds a configured secret value (use --with-secrets)' });
        continue;
      }
      staged.push(file.path);
    }
    const database = await options.backupDatabase(join(staging, DATABASE_NAME));
    if (secretsIn(join(staging, DATABASE_NAME), secrets))
      warnings.push(
        'the database holds a configured secret value (in a message or setting); it is archived as is',
      );
    staged.push(DATABASE_NAME);
    const manifest: BackupManifest = {
      format: 'wren-backup',
      formatVersion: FORMAT_VERSION,
      wrenVersion: options.wrenVersion,
      schemaVersion: database.schemaVersion,
      createdAt: new Date(options.now).toISOString(),
      withSecrets: options.withSecrets,
      counts: database.counts,
      leftOut: leftOut.filter((entry) => entry.reason.includes('secret')).map((entry) => entry.path),
      files: await describeStaged(staging, staged),
    };
    const bytes = await writeArchive(staging, manifest, options.dest);
    return { file: options.dest, bytes, manifest, database, leftOut, warnings };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
