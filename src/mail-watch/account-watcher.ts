import type { FetchMessageObject, ImapFlow } from 'imapflow';
import type { MailRule, MailWatchAccount } from '../config/mail-watch-config.js';
import type { ChatModel } from '../llm/types.js';
import type { ChannelStore } from '../store/ports.js';
import { sleep } from '../util/create-deadline.js';
import type { Logger } from '../util/logger.js';
import { imapClient, loginFailure } from './imap-client.js';
import { classifyMail } from './mail-classifier.js';
import { cleanLine, downloadText, mailParts } from './mail-content.js';
import { firstMatchingRule } from './mail-rules.js';
import {
  DIGEST_MAX_MAILS,
  DIGEST_TEXT_CHARS,
  digestEvent,
  MAIL_TEXT_CHARS,
  type MailTriggerEvent,
  mailEvent,
} from './mail-triggers.js';
import { MailWatchState, type PendingMail } from './mail-watch-state.js';

export interface MailWatchDeps {
  /** Where cursors, open digests and classifier verdicts are kept (the channel ledger). */
  ledger: ChannelStore;
  /** Stores an event to run once (UNIQUE key; false when it was recorded before). Must store before returning. */
  recordTrigger: (event: MailTriggerEvent) => boolean;
  /** For `important_only` (asked with the `small` tag). */
  model: ChatModel;
  logger: Logger;
  /** The default delivery targets (`proactive.deliver_to`) for rules without `deliver_to`. */
  deliverTo: () => readonly string[];
  now?: () => number;
  /** How often open digest windows are checked for being due (default 30 s). */
  digestCheckMs?: number;
  /** Reconnect delays: doubled per failure from `minMs` up to `maxMs` (defaults 1 s, 5 min). */
  backoff?: { minMs: number; maxMs: number };
}

/**
 * One watched account: a connection per folder (IMAP IDLE watches one selected folder; without IDLE, and as a
 * safety net with it, a poll every `poll_seconds`), reconnecting with exponential backoff. Each folder's
 * cursor (UIDVALIDITY + last UID) moves past a mail only after the mail's trigger (or its place in a digest)
 * was stored, so a crash at any point neither loses a mail nor runs it twice (a re-record hits the UNIQUE key).
 */
export class AccountWatcher {
  private readonly controller = new AbortController();
  private readonly state: MailWatchState;
  private readonly now: () => number;
  private readonly log: Logger;
  private running: Promise<unknown> | undefined;
  private digestTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly account: MailWatchAccount,
    private readonly deps: MailWatchDeps,
  ) {
    this.state = new MailWatchState(deps.ledger, account.name);
    this.now = deps.now ?? Date.now;
    this.log = deps.logger.child({ mailWatch: account.name });
  }

  start(): void {
    this.flushDigests();
    if (this.account.rules.some((rule) => rule.digestMs)) {
      this.digestTimer = setInterval(() => this.flushDigests(), this.deps.digestCheckMs ?? 30_000);
      this.digestTimer.unref();
    }
    this.running = Promise.all(this.account.folders.map((folder) => this.keepWatching(folder)));
  }

  async stop(): Promise<void> {
    this.controller.abort();
    clearInterval(this.digestTimer);
    await this.running?.catch(() => {});
  }

  /** Closes every digest window that is due: one trigger for all the mail it collected. */
  flushDigests(): void {
    for (const rule of this.account.rules) if (rule.digestMs) this.flushDue(rule);
  }

  private async keepWatching(folder: string): Promise<void> {
    const signal = this.controller.signal;
    const { minMs, maxMs } = this.deps.backoff ?? { minMs: 1000, maxMs: 5 * 60_000 };
    let failures = 0;
    while (!signal.aborted) {
      try {
        await this.session(folder, () => {
          failures = 0;
        });
      } catch (error) {
        if (signal.aborted) break;
        failures++;
        const refused = loginFailure(error);
        // A refused login will not heal by itself: retry rarely, and say what to fix.
        const delay = refused ? maxMs : Math.min(maxMs, minMs * 2 ** (failures - 1));
        const jittered = Math.round(delay * (0.5 + Math.random() / 2));
        this.log.warn(
          { folder, err: refused ? undefined : error, retryInSeconds: Math.round(jittered / 1000) },
          refused
            ? `the mail server refused the login for mail_watch account "${this.account.name}": check user and password${this.account.passwordHint ? ` (${this.account.passwordHint})` : ''}`
            : 'mail watch connection lost; reconnecting',
        );
        await sleep(jittered, signal).catch(() => {});
      }
    }
  }

  /** One connection watching `folder` until it fails (throws) or the watcher stops (returns). */
  private async session(folder: string, connected: () => void): Promise<void> {
    const signal = this.controller.signal;
    const client = await imapClient(this.account);
    let failed: (error: Error) => void = () => {};
    const ended = new Promise<void>((resolve, reject) => {
      failed = reject;
      client.on('close', () => reject(new Error('the IMAP connection closed')));
      client.on('error', (error: Error) => reject(error));
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
    ended.catch(() => {});
    let chain: Promise<void> = Promise.resolve();
    let poll: NodeJS.Timeout | undefined;
    try {
      await client.connect();
      await client.mailboxOpen(folder);
      connected();
      this.log.info(
        { folder, mode: client.capabilities.has('IDLE') ? 'idle' : 'poll' },
        'watching mail folder',
      );
      const check = () => {
        chain = chain
          .then(() => this.fetchNew(client, folder))
          .catch((error: unknown) => failed(error as Error));
      };
      client.on('exists', check);
      poll = setInterval(check, this.account.pollMs);
      check();
      await ended;
    } finally {
      clearInterval(poll);
      await chain.catch(() => {});
      await client.logout().catch(() => client.close());
    }
  }

  /** Takes in every mail above the folder's cursor, in UID order, moving the cursor mail by mail. */
  private async fetchNew(client: ImapFlow, folder: string): Promise<void> {
    const box = client.mailbox;
    if (!box) return;
    const validity = String(box.uidValidity);
    const newest = Math.max(0, Number(box.uidNext ?? 1) - 1);
    const stored = this.state.cursor(folder);
    if (!stored || stored.validity !== validity) {
      // First start: mail already there is not new. A changed UIDVALIDITY means the server renumbered the
      // folder: the old UIDs mean nothing now, and re-reading it all would flood the owner.
      this.state.setCursor(folder, { validity, last: newest });
      if (stored)
        this.log.warn(
          { folder, from: stored.validity, to: validity, newestUid: newest },
          'UIDVALIDITY changed (the server rebuilt the folder): the cursor restarts at the newest mail; mail before it is not summarised',
        );
      else
        this.log.info({ folder, newestUid: newest }, 'first look at this folder: watching mail from now on');
      return;
    }
    const fresh: FetchMessageObject[] = [];
    for await (const message of client.fetch(
      `${stored.last + 1}:*`,
      { uid: true, envelope: true, bodyStructure: true },
      { uid: true },
    ))
      if (message.uid > stored.last) fresh.push(message);
    fresh.sort((a, b) => a.uid - b.uid);
    for (const message of fresh) {
      if (this.controller.signal.aborted) return;
      try {
        await this.takeIn(client, folder, validity, message);
      } catch (error) {
        // A broken connection is retried after reconnecting (the cursor stays); anything else is this mail's
        // own problem and must not block the folder.
        if (!client.usable) throw error;
        this.log.error({ folder, uid: message.uid, err: error }, 'could not read a watched mail; skipped');
      }
      this.state.setCursor(folder, { validity, last: message.uid });
    }
  }

  private async takeIn(
    client: ImapFlow,
    folder: string,
    validity: string,
    message: FetchMessageObject,
  ): Promise<void> {
    const sender = message.envelope?.from?.[0];
    const address = (sender?.address ?? '').toLowerCase();
    const subject = cleanLine(message.envelope?.subject ?? '') || '(no subject)';
    const rule = firstMatchingRule(this.account.rules, { folder, from: address, subject });
    if (!rule) return;
    const parts = mailParts(message.bodyStructure);
    const text = (await downloadText(client, message.uid, parts)).slice(0, MAIL_TEXT_CHARS);
    const name = cleanLine(sender?.name ?? '');
    const mail: PendingMail = {
      key: `mailwatch:${this.account.name}:${folder}:${validity}:${message.uid}`,
      folder,
      from: name ? `${name} <${address}>` : address || '(unknown sender)',
      subject,
      text,
      attachments: parts.attachments,
      seenAt: this.now(),
    };
    if (rule.importantOnly && !(await this.important(mail))) {
      this.log.debug({ folder, uid: message.uid, rule: rule.name }, 'mail judged not important');
      return;
    }
    if (rule.digestMs) this.addToDigest(rule, mail);
    else
      this.deps.recordTrigger(
        mailEvent({ account: this.account.name, rule: rule.name, mail, deliverTo: this.targets(rule) }),
      );
  }

  /** The classifier's verdict, asked once per mail (kept, so a mail read again after a crash is not re-asked). */
  private async important(mail: PendingMail): Promise<boolean> {
    const known = this.state.verdict(mail.key);
    if (known !== undefined) return known;
    const verdict = await classifyMail(this.deps.model, mail, this.controller.signal);
    if (verdict.settled) this.state.setVerdict(mail.key, verdict.important);
    else this.log.warn({ key: mail.key }, 'the importance check gave no clear answer: summarising the mail');
    return verdict.important;
  }

  private addToDigest(rule: MailRule, mail: PendingMail): void {
    // A window already due is closed first, so mail never joins a window whose summary was recorded.
    this.flushDue(rule);
    const pending = this.state.digest(rule.name) ?? { windowStart: this.now(), mails: [] };
    if (pending.mails.some((kept) => kept.key === mail.key)) return;
    if (pending.mails.length >= DIGEST_MAX_MAILS) pending.more = (pending.more ?? 0) + 1;
    else pending.mails.push({ ...mail, text: mail.text.slice(0, DIGEST_TEXT_CHARS) });
    this.state.setDigest(rule.name, pending);
  }

  private flushDue(rule: MailRule): void {
    const pending = this.state.digest(rule.name);
    if (!pending || !rule.digestMs || this.now() < pending.windowStart + rule.digestMs) return;
    // Recorded before the window is emptied: a crash between the two re-records under the same key (ignored).
    this.deps.recordTrigger(
      digestEvent({
        account: this.account.name,
        rule: rule.name,
        windowStart: pending.windowStart,
        mails: pending.mails,
        more: pending.more ?? 0,
        deliverTo: this.targets(rule),
        now: this.now(),
      }),
    );
    this.state.setDigest(rule.name, undefined);
  }

  private targets(rule: MailRule): readonly string[] {
    return rule.deliverTo ?? this.deps.deliverTo();
  }
}
