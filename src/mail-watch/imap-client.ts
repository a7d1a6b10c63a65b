import type { ImapFlow } from 'imapflow';
import type { MailWatchAccount } from '../config/mail-watch-config.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * An IMAP client for a watched account (not yet connected). Off loopback the password never crosses the
 * network in clear text: without `secure`, STARTTLS is required. imapflow sends the IMAP ID command when the
 * server offers it (163 Mail refuses a client that does not).
 */
export async function imapClient(
  account: MailWatchAccount,
  options: { connectTimeoutMs?: number } = {},
): Promise<ImapFlow> {
  const { ImapFlow } = await import('imapflow');
  return new ImapFlow({
    host: account.host,
    port: account.port,
    secure: account.secure,
    ...(account.secure || LOOPBACK.has(account.host) ? {} : { doSTARTTLS: true }),
    auth: { user: account.user, pass: account.password },
    logger: false,
    missingIdleCommand: 'NOOP',
    // Enter IDLE a second after the last command (default 15 s), so new mail is seen at once.
    autoIdleDelay: 1000,
    ...(options.connectTimeoutMs
      ? { connectionTimeout: options.connectTimeoutMs, greetingTimeout: options.connectTimeoutMs }
      : {}),
  });
}

/** Whether an error is the server refusing the login (retrying with the same password cannot help). */
export function loginFailure(error: unknown): boolean {
  const text = String(
    (error as { responseText?: string } | undefined)?.responseText ??
      (error as Error | undefined)?.message ??
      '',
  );
  return (
    (error as { authenticationFailed?: boolean } | undefined)?.authenticationFailed === true ||
    /AUTHENTICATIONFAILED|Invalid credentials|LOGIN failed|authentication failed/i.test(text)
  );
}
