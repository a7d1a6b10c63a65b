import type { Command } from 'commander';
import type { BackupFailure, RestoredHome, TakenBackup } from '../../services/backup-service.js';
import { wrenVersion } from '../../util/wren-version.js';
import { EXIT } from '../report-failure.js';

const out = (text: string) => process.stdout.write(`${text}\n`);
const say = (text: string) => process.stderr.write(`${text}\n`);

/** Exit code of a refusal: 2 for what the owner must change first (input, a running gateway), else 1. */
function failed(result: BackupFailure): void {
  say(`wren: ${result.error}`);
  process.exitCode = result.code === 'invalid' || result.code === 'busy' ? EXIT.usage : EXIT.failed;
}

/** `1.2 MB`, `340 kB`, `12 B`. Pure. */
export function sizeText(bytes: number): string {
  if (bytes >= 1_000_000) return `${(bytes / 1_000_000).toFixed(1)} MB`;
  if (bytes >= 1_000) return `${Math.round(bytes / 1_000)} kB`;
  return `${bytes} B`;
}

/** The tables most people look for, then how many others. Pure. */
export function countsText(counts: Record<string, number>): string {
  const named: Array<[string, string]> = [
    ['sessions', 'sessions'],
    ['messages', 'messages'],
    ['memos', 'memos'],
    ['tasks', 'tasks'],
    ['reminders', 'reminders'],
    ['goals', 'goals'],
  ];
  const parts = named
    .filter(([table]) => table in counts)
    .map(([table, label]) => `${counts[table]} ${label}`);
  const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
  return `${parts.join(', ')} (${total} rows in ${Object.keys(counts).length} tables)`;
}

/** What `wren backup` prints: where, how big, what is in it, what was left out and whether secrets are. */
export function backupSummary(taken: TakenBackup): string[] {
  const { manifest } = taken;
  const files = manifest.files.filter((file) => file.path !== 'wren.db');
  const lines = [
    `Backup written: ${taken.file} (${sizeText(taken.bytes)}, readable only by you: mode 0600)`,
    `  database: schema v${manifest.schemaVersion}, ${sizeText(taken.database.bytes)}; ${countsText(manifest.counts)}`,
    `  files: ${files.length} (${files
      .slice(0, 8)
      .map((file) => file.path)
      .join(', ')}${files.length > 8 ? ', …' : ''})`,
  ];
  for (const entry of taken.leftOut) lines.push(`  left out: ${entry.path}: ${entry.reason}`);
  for (const warning of taken.warnings) lines.push(`  warning: ${warning}`);
  if (manifest.withSecrets)
    lines.push(
      'This archive CONTAINS SECRETS (.env, keys, tokens). It was created with mode 0600; keep it as private ' +
        'as the home itself and never share it.',
    );
  return lines;
}

/** What `wren restore` prints. */
export function restoreSummary(file: string, restored: RestoredHome): string[] {
  const { manifest } = restored;
  return [
    `Restored ${restored.home} from ${file}`,
    `  backup of ${manifest.createdAt} by Wren ${manifest.wrenVersion}, schema v${manifest.schemaVersion}` +
      `${manifest.withSecrets ? ', with secrets' : ''}`,
    `  database: ${countsText(restored.database.counts)}; files: ${manifest.files.length - 1}`,
    ...(restored.carried.length
      ? [`  kept from the previous home (not in the archive): ${restored.carried.join(', ')}`]
      : []),
    restored.aside
      ? `The previous home is at ${restored.aside}; delete it once the restored one works.`
      : 'There was no home here before.',
  ];
}

async function runBackup(home: string, options: { to?: string; withSecrets?: boolean; json?: boolean }) {
  const { withHome } = await import('../../app/open-home.js');
  const { secretValues } = await import('../../app/built-in-registry.js');
  const { createBackupService } = await import('../../services/backup-service.js');
  say(`Backing up ${home}${options.withSecrets ? ' WITH its secrets' : ''} …`);
  const result = await withHome(home, (opened) =>
    createBackupService({
      home,
      stores: opened.stores(),
      config: () => opened.config,
      secrets: () => secretValues(home, opened.config),
      wrenVersion: wrenVersion(),
    }).create({
      ...(options.to ? { to: options.to } : {}),
      ...(options.withSecrets ? { withSecrets: true } : {}),
    }),
  );
  if (!result.ok) return failed(result);
  if (options.json)
    out(JSON.stringify({ file: result.file, bytes: result.bytes, manifest: result.manifest }, null, 2));
  else out(backupSummary(result).join('\n'));
}

/**
 * `wren backup [--to FILE] [--with-secrets] [--json]` and `wren restore FILE`. A backup works while
 * `wren start` runs (the database is copied through SQLite's online backup API); a restore refuses to.
 * Exit codes: 0 done, 1 the archive is damaged or the disk failed, 2 bad input or a gateway holds the home.
 */
export function registerBackupCommands(program: Command, home: () => string): void {
  program
    .command('backup')
    .description(
      'write one archive of the home (database, workspace, config); secrets only with --with-secrets',
    )
    .option('--to <file>', 'the archive to write, or a folder for it (default: backup.to, <home>/backups)')
    .option(
      '--with-secrets',
      'also archive .env, keys and tokens (the archive is then as secret as they are)',
    )
    .option('--json', 'print the archive and its manifest as JSON')
    .action((options: { to?: string; withSecrets?: boolean; json?: boolean }) => runBackup(home(), options));
  program
    .command('restore <file>')
    .description('replace the home with a backup (checked first; the current home is kept aside)')
    .action(async (file: string) => {
      const { restoreBackup } = await import('../../services/backup-service.js');
      say(`Checking ${file} …`);
      const result = await restoreBackup(home(), file);
      if (!result.ok) return failed(result);
      out(restoreSummary(file, result).join('\n'));
    });
}
