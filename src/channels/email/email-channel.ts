import { basename } from 'node:path';
import type { ImapFlow } from 'imapflow';
import type { Transporter } from 'nodemailer';
import picomatch from 'picomatch';
import type { OutboundMessage } from '../../bus/messages.js';
import { parseApprovalReply } from '../approval-text.js';
import { IMAGE_MEDIA_TYPES as IMAGE_TYPES } from '../image-type.js';
import type { PlatformFile } from '../inbound-files.js';
import { PlatformChannel } from '../platform-channel.js';
import { type AdapterOptions, platformOptions } from '../platform-options.js';
import { judgeSender } from './authentication-results.js';
import { newText } from './email-body.js';
import type { EmailConfig } from './email-config.js';

/** A watched mail, for the proactive engine: recorded before the mailbox cursor moves past it. */
export interface MailTrigger {
  /** `mail:<address>:<uidvalidity>:<uid>`: the same mail is one trigger, however often it is seen. */
  key: string;
  rule: string;
  from: string;
  subject: string;
  text: string;
  deliverTo?: string[];
}

export interface EmailChannelOptions extends AdapterOptions<EmailConfig> {
  /** A mail matching a `watch` rule (from anyone). Must store it before returning. */
  onWatched?: (trigger: MailTrigger) => void;
}

interface Thread {
  messageId: string;
  references: string[];
  subject: string;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * An IMAP mailbox as a channel. New mail is noticed by IDLE (and a poll every `poll_seconds` as a safety
 * net); the UID high-water mark is stored per mailbox (with its UIDVALIDITY), so a restart neither misses
 * nor repeats mail, and the first start takes only mail arriving from then on. A mail counts as its From
 * address only when the receiving server's topmost Authentication-Results passes for that domain: a forged
 * From gets nothing. Replies go over SMTP in the same thread (`In-Reply-To`, `References`, `Re:`).
 */
export class EmailChannel extends PlatformChannel {
  protected readonly textLimit = 200_000;
  private readonly email: EmailChannelOptions;
  private readonly controller = new AbortController();
  private running: Promise<void> | undefined;
  private transport: Transporter | undefined;
  /** The last mail of each correspondent, to thread replies to. */
  private readonly threads = new Map<string, Thread>();
  private chain: Promise<void> = Promise.resolve();

  constructor(options: EmailChannelOptions) {
    // Mail shows no tool progress: its section has no progress setting.
    super(platformOptions('email', options));
    this.email = options;
  }

  async start(signal?: AbortSignal): Promise<void> {
    signal?.addEventListener('abort', () => this.controller.abort(), { once: true });
    const config = this.email.config();
    const nodemailer = await import('nodemailer');
    this.transport = nodemailer.createTransport({
      host: config.smtp.host,
      port: config.smtp.port,
      secure: config.smtp.secure,
      // Off loopback the password never crosses the network in clear text.
      requireTLS: !config.smtp.secure && !LOOPBACK.has(config.smtp.host),
      auth: { user: config.smtp.user, pass: config.password },
    });
    this.attachPlatform();
    this.running = this.keepConnected(
      this.controller.signal,
      (abort, connected) => this.session(abort, connected),
      fatalReason,
    );
  }

  async stop(): Promise<void> {
    this.controller.abort();
    this.detachPlatform();
    await this.running?.catch(() => {});
    this.transport?.close();
    this.setState('stopped');
  }

  private async session(signal: AbortSignal, connected: () => void): Promise<void> {
    const config = this.email.config();
    const { ImapFlow } = await import('imapflow');
    const client = new ImapFlow({
      host: config.imap.host,
      port: config.imap.port,
      secure: config.imap.secure,
      ...(config.imap.secure || LOOPBACK.has(config.imap.host) ? {} : { doSTARTTLS: true }),
      auth: { user: config.imap.user, pass: config.password },
      logger: false,
      missingIdleCommand: 'NOOP',
      // Enter IDLE a second after the last command (default 15 s), so new mail is seen at once.
      autoIdleDelay: 1000,
    });
    let failed: (error: Error) => void = () => {};
    const ended = new Promise<void>((resolve, reject) => {
      failed = reject;
      client.on('close', () => reject(new Error('the IMAP connection closed')));
      client.on('error', (error) => reject(error));
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
    ended.catch(() => {});
    let poll: NodeJS.Timeout | undefined;
    try {
      await client.connect();
      await client.mailboxOpen(config.mailbox);
      connected();
      const check = () => {
        this.chain = this.chain
          .then(() => this.fetchNew(client))
          .catch((error: unknown) => failed(error as Error));
      };
      client.on('exists', check);
      poll = setInterval(check, config.pollMs);
      check();
      await ended;
    } finally {
      clearInterval(poll);
      await this.chain.catch(() => {});
      await client.logout().catch(() => client.close());
    }
  }

  /** Takes in every mail above the stored high-water mark, advancing it mail by mail. */
  private async fetchNew(client: ImapFlow): Promise<void> {
    const config = this.email.config();
    const ledger = this.platform.ledger;
    const box = client.mailbox;
    if (!box) return;
    const key = `uid:${config.mailbox}`;
    const validity = String(box.uidValidity);
    const stored = JSON.parse(ledger.cursor(this.name, key) ?? 'null') as {
      validity: string;
      last: number;
    } | null;
    if (!stored || stored.validity !== validity) {
      // First start (or the mailbox was rebuilt): mail already there is not new; start from here.
      ledger.setCursor(
        this.name,
        key,
        JSON.stringify({ validity, last: Math.max(0, (box.uidNext ?? 1) - 1) }),
      );
      return;
    }
    const fresh: Array<{ uid: number; source: Buffer }> = [];
    for await (const message of client.fetch(
      `${stored.last + 1}:*`,
      { uid: true, source: true },
      { uid: true },
    )) {
      if (message.uid > stored.last && message.source)
        fresh.push({ uid: message.uid, source: message.source });
    }
    fresh.sort((a, b) => a.uid - b.uid);
    for (const { uid, source } of fresh) {
      await this.takeIn(source, `${validity}:${uid}`).catch((error: unknown) =>
        this.platform.onError?.(error),
      );
      ledger.setCursor(this.name, key, JSON.stringify({ validity, last: uid }));
    }
  }

  private async takeIn(source: Buffer, where: string): Promise<void> {
    const config = this.email.config();
    const { simpleParser } = await import('mailparser');
    const mail = await simpleParser(source);
    const sender = mail.from?.value[0];
    const from = sender?.address?.toLowerCase();
    if (!from || from === config.address) return;
    const subject = mail.subject ?? '(no subject)';
    const body = mail.text ?? '';
    this.watch(from, subject, body, where);
    if (config.requireAuthentication) {
      const verdict = judgeSender(mail.headerLines, from, config.trustedAuthservIds);
      if (!verdict.pass) {
        // Nothing goes back: an answer would confirm the address to whoever forged it.
        this.platform.onError?.(new Error(`ignored mail claiming to be from ${from}: ${verdict.reason}`));
        return;
      }
    }
    const messageId = mail.messageId ?? `<${where}@wren.invalid>`;
    const references = [...toList(mail.references), messageId].slice(-20);
    let text = newText(body);
    const first =
      text
        .split('\n')
        .find((line) => line.trim())
        ?.trim() ?? '';
    if (parseApprovalReply(first)) text = first;
    else text = `Subject: ${subject}\n\n${text}`;
    this.threads.set(from, { messageId, references, subject });
    // The attachments are in the mail already, but are saved to the inbox only for a sender the base admits.
    await this.receive({
      platformId: messageId,
      senderId: from,
      senderName: sender?.name ?? '',
      chatId: from,
      text,
      files: (mail.attachments ?? []).map(
        (file): PlatformFile => ({
          kind: IMAGE_TYPES.has(file.contentType) ? 'image' : 'file',
          name: file.filename ?? 'attachment',
          size: file.size,
          download: async () => file.content,
        }),
      ),
    });
  }

  private watch(from: string, subject: string, body: string, where: string): void {
    const config = this.email.config();
    for (const rule of config.watch) {
      if (rule.from && !picomatch.isMatch(from, rule.from, { nocase: true })) continue;
      if (rule.subject && !subject.toLowerCase().includes(rule.subject.toLowerCase())) continue;
      this.email.onWatched?.({
        key: `mail:${config.address}:${where}`,
        rule: rule.name,
        from,
        subject,
        text: body.slice(0, 20_000),
        ...(rule.deliverTo ? { deliverTo: rule.deliverTo } : {}),
      });
      return;
    }
  }

  /** One mail per message, in the correspondent's thread, with its attachments. */
  override async send(message: OutboundMessage): Promise<void> {
    const text = message.text.trim() ? message.text : '(empty reply)';
    await this.mail(
      message.chatId,
      text,
      (message.attachments ?? []).map((file) => ({ path: file.path, filename: basename(file.name) })),
    );
  }

  protected async sendText(chatId: string, text: string): Promise<void> {
    await this.mail(chatId, text, []);
  }

  private async mail(to: string, text: string, attachments: Array<{ path: string; filename: string }>) {
    const config = this.email.config();
    const thread = this.threads.get(to);
    const firstLine =
      text
        .split('\n')
        .find((line) => line.trim())
        ?.trim()
        .slice(0, 70) ?? 'Wren';
    // Control characters never reach a header: a crafted subject or first line cannot add one (a Bcc:).
    const subject = (
      thread
        ? /^re:/i.test(thread.subject)
          ? thread.subject
          : `Re: ${thread.subject}`
        : `Wren: ${firstLine}`
    ).replace(/[\u0000-\u001f\u007f]+/g, ' ');
    await this.transport!.sendMail({
      from: config.address,
      to,
      subject,
      text,
      ...(thread ? { inReplyTo: thread.messageId, references: thread.references } : {}),
      ...(attachments.length ? { attachments } : {}),
    });
  }
}

function toList(references: string | string[] | undefined): string[] {
  if (!references) return [];
  return Array.isArray(references) ? references : references.split(/\s+/).filter(Boolean);
}

/** Errors retrying cannot fix. */
function fatalReason(error: unknown): string | undefined {
  const text = String((error as { responseText?: string }).responseText ?? (error as Error).message ?? '');
  if (
    (error as { authenticationFailed?: boolean }).authenticationFailed ||
    /AUTHENTICATIONFAILED|Invalid credentials/i.test(text)
  )
    return 'the mail server refused the login: check channels.email.address and password (an app password for Gmail, Outlook and QQ)';
  return undefined;
}
