import type { ChannelStore } from '../store/ports.js';

/** Where a folder was read up to: the UID high-water mark within one UIDVALIDITY. */
export interface MailCursor {
  validity: string;
  last: number;
}

/** One mail waiting in a digest: only what the summary needs (the first words, attachment names). */
export interface PendingMail {
  key: string;
  folder: string;
  from: string;
  subject: string;
  text: string;
  attachments: string[];
  seenAt: number;
}

/** A rule's open digest window: when it opened and the mail collected since. */
export interface PendingDigest {
  windowStart: number;
  mails: PendingMail[];
  /** Mail beyond what one digest shows: counted only. */
  more?: number;
}

/** Classifier verdicts kept per account (newest last), so a mail read again is not asked about again. */
const VERDICTS_KEPT = 500;

/**
 * What a watched account keeps across restarts, in the channel ledger's cursor table under the ledger
 * channel `mailwatch:<account>` (no table of its own): each folder's cursor (`uid:<folder>`), each digest
 * rule's pending mail (`digest:<rule>`), and the important-only verdicts (`verdicts`). Every write is one
 * statement, so each is whole after a crash.
 */
export class MailWatchState {
  private readonly channel: string;

  constructor(
    private readonly ledger: ChannelStore,
    account: string,
  ) {
    this.channel = `mailwatch:${account}`;
  }

  cursor(folder: string): MailCursor | undefined {
    return this.read<MailCursor>(`uid:${folder}`);
  }

  setCursor(folder: string, cursor: MailCursor): void {
    this.ledger.setCursor(this.channel, `uid:${folder}`, JSON.stringify(cursor));
  }

  digest(rule: string): PendingDigest | undefined {
    const pending = this.read<PendingDigest>(`digest:${rule}`);
    return pending && pending.mails.length > 0 ? pending : undefined;
  }

  setDigest(rule: string, pending: PendingDigest | undefined): void {
    this.ledger.setCursor(
      this.channel,
      `digest:${rule}`,
      JSON.stringify(pending ?? { windowStart: 0, mails: [] }),
    );
  }

  verdict(key: string): boolean | undefined {
    return this.read<Record<string, boolean>>('verdicts')?.[key];
  }

  setVerdict(key: string, important: boolean): void {
    const verdicts = Object.entries(this.read<Record<string, boolean>>('verdicts') ?? {}).filter(
      ([known]) => known !== key,
    );
    verdicts.push([key, important]);
    const kept = Object.fromEntries(verdicts.slice(-VERDICTS_KEPT));
    this.ledger.setCursor(this.channel, 'verdicts', JSON.stringify(kept));
  }

  private read<T>(key: string): T | undefined {
    const value = this.ledger.cursor(this.channel, key);
    return value === undefined ? undefined : (JSON.parse(value) as T);
  }
}
