import type { MailWatchAccount } from '../config/mail-watch-config.js';
import { imapClient, loginFailure } from './imap-client.js';
import { cleanLine } from './mail-content.js';

export type ProbeResult =
  | {
      ok: true;
      idle: boolean;
      folders: string[];
      newest: Array<{ uid: number; from: string; subject: string }>;
    }
  | { ok: false; error: string };

/**
 * `wren mail test`: logs in, lists the folders and reads the envelopes of the newest three mails of the first
 * watched folder (read-only: nothing is marked seen). The password never appears in the result.
 */
export async function probeAccount(account: MailWatchAccount, timeoutMs = 15_000): Promise<ProbeResult> {
  const client = await imapClient(account, { connectTimeoutMs: timeoutMs });
  client.on('error', () => {});
  try {
    await client.connect();
    const folders = (await client.list()).map((entry) => entry.path).sort();
    const folder = account.folders[0] ?? 'INBOX';
    const box = await client.mailboxOpen(folder, { readOnly: true });
    const newest: Array<{ uid: number; from: string; subject: string }> = [];
    if (box.exists > 0) {
      for await (const message of client.fetch(`${Math.max(1, box.exists - 2)}:*`, {
        uid: true,
        envelope: true,
      }))
        newest.push({
          uid: message.uid,
          from: cleanLine(message.envelope?.from?.[0]?.address ?? ''),
          subject: cleanLine(message.envelope?.subject ?? '') || '(no subject)',
        });
    }
    newest.sort((a, b) => b.uid - a.uid);
    return { ok: true, idle: client.capabilities.has('IDLE'), folders, newest };
  } catch (error) {
    return { ok: false, error: probeError(account, error) };
  } finally {
    await client.logout().catch(() => client.close());
  }
}

function probeError(account: MailWatchAccount, error: unknown): string {
  const where = `${account.host}:${account.port}`;
  if (loginFailure(error))
    return `the mail server ${where} refused the login of ${account.user}: check user and password${account.passwordHint ? ` — use ${account.passwordHint}` : ''}`;
  const code = (error as { code?: string }).code;
  const text = cleanLine(
    String((error as { responseText?: string }).responseText ?? (error as Error).message),
  );
  const message = text.split(account.password).join('***');
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'ETIMEDOUT' || /timeout/i.test(message))
    return `could not reach the mail server ${where} (${code ?? message}): check host, port and secure`;
  return `the mail server ${where} failed: ${message}`;
}
