import type { Command } from 'commander';
import type { MailRule, MailWatchAccount } from '../../config/mail-watch-config.js';
import { EXIT } from '../report-failure.js';

/** Where the mail commands write (the process streams, or buffers in tests). */
export interface MailCommandIo {
  stdout: Pick<NodeJS.WritableStream, 'write'>;
  stderr: Pick<NodeJS.WritableStream, 'write'>;
}

const defaultIo = (): MailCommandIo => ({ stdout: process.stdout, stderr: process.stderr });

/** One account as `wren mail list` shows it (never its password). */
export interface MailAccountListing {
  name: string;
  host: string;
  port: number;
  user: string;
  folders: Array<{ name: string; cursor?: { uidValidity: string; lastUid: number } }>;
  rules: Array<{ name: string; filters: string }>;
}

function describeRule(rule: MailRule): string {
  const parts = [
    rule.from ? `from ${rule.from}` : '',
    rule.subject ? `subject has "${rule.subject}"` : '',
    rule.folder ? `in ${rule.folder}` : '',
    rule.importantOnly ? 'important only' : '',
    rule.digestMs ? `digest every ${rule.digestMs / 60_000} min` : '',
    rule.deliverTo ? `to ${rule.deliverTo.join(', ')}` : '',
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(', ') : 'every mail';
}

/** `wren mail list [--json]`: the watched accounts, their folders with cursor positions, and rules. */
export async function runMailList(
  options: { home: string; json?: boolean },
  io = defaultIo(),
): Promise<number> {
  const { withHome } = await import('../../app/open-home.js');
  const { MailWatchState } = await import('../../mail-watch/mail-watch-state.js');
  const listings = await withHome(options.home, (opened) =>
    opened.config.mailWatch.map((account): MailAccountListing => {
      const state = new MailWatchState(opened.stores().channels, account.name);
      return {
        name: account.name,
        host: account.host,
        port: account.port,
        user: account.user,
        folders: account.folders.map((folder) => {
          const cursor = state.cursor(folder);
          return {
            name: folder,
            ...(cursor ? { cursor: { uidValidity: cursor.validity, lastUid: cursor.last } } : {}),
          };
        }),
        rules: account.rules.map((rule) => ({ name: rule.name, filters: describeRule(rule) })),
      };
    }),
  );
  if (options.json) {
    io.stdout.write(`${JSON.stringify({ accounts: listings }, null, 2)}\n`);
    return EXIT.ok;
  }
  if (listings.length === 0) {
    io.stdout.write(
      'No mailboxes are watched. Add accounts under mail_watch: in config.yaml (docs/triggers.md).\n',
    );
    return EXIT.ok;
  }
  for (const account of listings) {
    io.stdout.write(`${account.name}  ${account.user} at ${account.host}:${account.port}\n`);
    for (const folder of account.folders) {
      const where = folder.cursor
        ? `read up to UID ${folder.cursor.lastUid} (UIDVALIDITY ${folder.cursor.uidValidity})`
        : 'not read yet (starts at the newest mail when wren start runs)';
      io.stdout.write(`  folder ${folder.name}: ${where}\n`);
    }
    for (const rule of account.rules) io.stdout.write(`  rule ${rule.name}: ${rule.filters}\n`);
  }
  return EXIT.ok;
}

/**
 * `wren mail test NAME`: logs in to the account, lists its folders and the newest three subjects. Exit 1 with
 * one clear line when the login is refused or the server cannot be reached; the password is never printed.
 */
export async function runMailTest(
  options: { home: string; name: string },
  io = defaultIo(),
): Promise<number> {
  const { withHome } = await import('../../app/open-home.js');
  const accounts: readonly MailWatchAccount[] = await withHome(
    options.home,
    (opened) => opened.config.mailWatch,
  );
  const account = accounts.find((entry) => entry.name === options.name);
  if (!account) {
    const known = accounts.map((entry) => entry.name).join(', ') || 'none';
    io.stderr.write(`wren: no mail_watch account named "${options.name}" (configured: ${known})\n`);
    return EXIT.failed;
  }
  const { probeAccount } = await import('../../mail-watch/probe-account.js');
  const result = await probeAccount(account);
  if (!result.ok) {
    io.stderr.write(`wren: ${result.error}\n`);
    return EXIT.failed;
  }
  io.stdout.write(
    `Logged in to ${account.host}:${account.port} as ${account.user} (${result.idle ? 'IDLE: new mail is seen at once' : `no IDLE: checked every ${account.pollMs / 1000} s`}).\n`,
  );
  io.stdout.write(`Folders: ${result.folders.join(', ')}\n`);
  const missing = account.folders.filter((folder) => !result.folders.includes(folder));
  if (missing.length > 0) io.stdout.write(`Not on the server (fix folders:): ${missing.join(', ')}\n`);
  io.stdout.write(`Newest in ${account.folders[0]}:\n`);
  if (result.newest.length === 0) io.stdout.write('  (empty)\n');
  for (const mail of result.newest) io.stdout.write(`  ${mail.subject}  — ${mail.from}\n`);
  return EXIT.ok;
}

/** `wren mail list|test`: the owner's own mailboxes that `mail_watch:` watches. */
export function registerMailCommands(program: Command, home: () => string): void {
  const group = program
    .command('mail')
    .description("the owner's own mailboxes watched for mail worth a summary (mail_watch: in config.yaml)");
  group
    .command('list', { isDefault: true })
    .description('watched accounts, their folders and how far each was read, and the rules')
    .option('--json', 'machine-readable output')
    .action(async (options: { json?: boolean }) => {
      process.exitCode = await runMailList({ home: home(), ...options });
    });
  group
    .command('test <name>')
    .description('log in to an account, list its folders and the newest three subjects')
    .action(async (name: string) => {
      process.exitCode = await runMailTest({ home: home(), name });
    });
}
