import { join } from 'node:path';
import { ImapFlow } from 'imapflow';
import { openDatabase } from '../../src/store/open-database.js';
import type { Dovecot } from '../support/dovecot.js';

let users = 0;

/** A fresh IMAP user: Dovecot's static passdb takes any name, and each name is its own mailbox. */
export function freshUser(prefix = 'owner'): string {
  users++;
  return `${prefix}${users}-${process.pid}@example.org`;
}

export interface TestMail {
  from: string;
  subject: string;
  body: string;
  attachment?: { name: string; content: string };
}

function raw(user: string, mail: TestMail): string {
  return [
    `From: Someone <${mail.from}>`,
    `To: ${user}`,
    `Subject: ${mail.subject}`,
    `Message-ID: <${Math.random().toString(36).slice(2)}@test>`,
    'Date: Tue, 01 Dec 2026 10:00:00 +0000',
    'MIME-Version: 1.0',
    ...(mail.attachment
      ? [
          'Content-Type: multipart/mixed; boundary="b1"',
          '',
          '--b1',
          'Content-Type: text/plain; charset=utf-8',
          '',
          mail.body,
          '--b1',
          `Content-Type: application/octet-stream; name="${mail.attachment.name}"`,
          `Content-Disposition: attachment; filename="${mail.attachment.name}"`,
          'Content-Transfer-Encoding: base64',
          '',
          Buffer.from(mail.attachment.content).toString('base64'),
          '--b1--',
        ]
      : ['Content-Type: text/plain; charset=utf-8', '', mail.body]),
    '',
  ].join('\r\n');
}

/** Runs `use` on an IMAP session of `user` (as another mail client would). */
export async function asUser<T>(dovecot: Dovecot, user: string, use: (client: ImapFlow) => Promise<T>) {
  const client = new ImapFlow({
    host: dovecot.host,
    port: dovecot.port,
    secure: false,
    auth: { user, pass: dovecot.password },
    logger: false,
  });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.logout();
  }
}

/** Puts mail in a folder of `user`'s mailbox, the way a receiving server would. */
export function deliver(dovecot: Dovecot, user: string, mails: TestMail | TestMail[], folder = 'INBOX') {
  return asUser(dovecot, user, async (client) => {
    for (const mail of Array.isArray(mails) ? mails : [mails]) await client.append(folder, raw(user, mail));
  });
}

/** The stored cursor of a watched folder (raw, from its own connection to wren.db). */
export function cursorOf(home: string, account: string, folder = 'INBOX') {
  const db = openDatabase(join(home, 'wren.db'));
  try {
    const row = db
      .prepare('SELECT value FROM channel_cursors WHERE channel = ? AND key = ?')
      .get(`mailwatch:${account}`, `uid:${folder}`) as { value: string } | undefined;
    return row ? (JSON.parse(row.value) as { validity: string; last: number }) : undefined;
  } catch {
    return undefined;
  } finally {
    db.close();
  }
}

/** Overwrites a watched folder's cursor (to stage "recorded, but the cursor had not moved yet"). */
export function setCursorOf(
  home: string,
  account: string,
  folder: string,
  cursor: { validity: string; last: number },
) {
  const db = openDatabase(join(home, 'wren.db'));
  try {
    db.prepare('UPDATE channel_cursors SET value = ? WHERE channel = ? AND key = ?').run(
      JSON.stringify(cursor),
      `mailwatch:${account}`,
      `uid:${folder}`,
    );
  } finally {
    db.close();
  }
}

/** Every recorded mail-watch trigger key, oldest first. */
export function triggerKeys(home: string): string[] {
  const db = openDatabase(join(home, 'wren.db'));
  try {
    return (
      db.prepare("SELECT key FROM triggers WHERE key LIKE 'mailwatch%' ORDER BY id").all() as Array<{
        key: string;
      }>
    ).map((row) => row.key);
  } finally {
    db.close();
  }
}

/** The mail-watch config of one account against the test Dovecot. */
export function accountYaml(
  dovecot: Dovecot,
  account: { name: string; user: string; folders?: string[]; rules: string[] },
): string {
  return [
    `  - name: ${account.name}`,
    `    host: ${dovecot.host}`,
    `    port: ${dovecot.port}`,
    '    secure: false',
    `    user: ${account.user}`,
    '    password: ${MAIL_PASSWORD}',
    '    poll_seconds: 10',
    `    folders: [${(account.folders ?? ['INBOX']).join(', ')}]`,
    '    rules:',
    ...account.rules.map((rule) => `      - ${rule}`),
  ].join('\n');
}
