import { type ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

const DOVECOT = '/usr/sbin/dovecot';

/**
 * A real IMAP server for mail tests: Debian's Dovecot (package `dovecot-imapd`, installed by `.ci/run`),
 * started in the foreground on 127.0.0.1 with a throwaway config in a temp folder: plaintext login allowed
 * on loopback, one static password, Maildir storage. As root, mail is stored as `nobody` (Dovecot refuses
 * uid 0 and, with `first_valid_uid = 100`, system users); otherwise as the current user.
 */
export async function startDovecot(password = 'imap-test-password') {
  if (!existsSync(DOVECOT))
    throw new Error(
      `${DOVECOT} not found: the mail tests need a real IMAP server. Install it with \`apt-get install dovecot-imapd\` (.ci/run does).`,
    );
  const dir = mkdtempSync(join(tmpdir(), 'wren-dovecot-'));
  // Mail processes run as another user (nobody) when we are root: they must be able to reach the folder.
  chmodSync(dir, 0o755);
  const mail = join(dir, 'mail');
  for (const sub of ['run', 'state', 'mail']) mkdirSync(join(dir, sub), { mode: 0o755 });
  const root = process.getuid?.() === 0;
  const uid = root ? 65534 : (process.getuid?.() ?? 1000);
  const gid = root ? 65534 : (process.getgid?.() ?? 1000);
  if (root) chownSync(mail, uid, gid);
  const user = process.env['USER'] ?? 'root';
  const port = await freePort();
  const config = [
    'protocols = imap',
    'listen = 127.0.0.1',
    `base_dir = ${join(dir, 'run')}`,
    `state_dir = ${join(dir, 'state')}`,
    `log_path = ${join(dir, 'dovecot.log')}`,
    'ssl = no',
    'disable_plaintext_auth = no',
    'auth_mechanisms = plain login',
    `mail_location = maildir:${mail}/%u`,
    'first_valid_uid = 100',
    ...(root ? [] : [`default_internal_user = ${user}`, `default_login_user = ${user}`]),
    'passdb {',
    '  driver = static',
    `  args = password=${password}`,
    '}',
    'userdb {',
    '  driver = static',
    `  args = uid=${uid} gid=${gid} home=${mail}/%u`,
    '}',
    'service imap-login {',
    '  chroot =',
    '  inet_listener imap {',
    '    address = 127.0.0.1',
    `    port = ${port}`,
    '  }',
    '  inet_listener imaps {',
    '    port = 0',
    '  }',
    '}',
    'service anvil {',
    '  chroot =',
    '}',
  ].join('\n');
  const file = join(dir, 'dovecot.conf');
  writeFileSync(file, `${config}\n`);
  const child: ChildProcess = spawn(DOVECOT, ['-F', '-c', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString().startsWith('* OK'));
      });
      socket.once('error', () => resolve(false));
    });
    if (up) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      const log = existsSync(join(dir, 'dovecot.log')) ? readFileSync(join(dir, 'dovecot.log'), 'utf8') : '';
      child.kill('SIGKILL');
      throw new Error(`dovecot did not start: ${output}\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    host: '127.0.0.1',
    port,
    password,
    dir,
    /** Ends every IMAP session the server holds (as a server restart or a network drop would). */
    dropConnections(): void {
      // The master's children named `imap` are the sessions (read from /proc: no procps needed).
      for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
        try {
          const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
          const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
          const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
          if (comm === 'imap' && parent === child.pid) process.kill(Number(pid), 'SIGKILL');
        } catch {
          // The process ended while we looked.
        }
      }
    },
    stop(): Promise<void> {
      return new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    },
  };
}

export type Dovecot = Awaited<ReturnType<typeof startDovecot>>;
