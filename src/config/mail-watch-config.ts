import * as z from 'zod';
import { fromString } from '../util/from-string.js';

const flag = z.preprocess(fromString, z.boolean());
const integer = (min: number, max: number) => z.preprocess(fromString, z.number().int().min(min).max(max));
const name = z.string().regex(/^[a-z0-9_-]{1,40}$/i, 'use letters, digits, _ and - (at most 40)');

/**
 * IMAP servers of the common providers, and where each hands out a password IMAP accepts: every one of them
 * refuses the normal account password once two-step sign-in is on (QQ and 163 always).
 */
export const MAIL_WATCH_PRESETS = {
  gmail: {
    host: 'imap.gmail.com',
    password: 'an app password: Google Account → Security → 2-Step Verification → App passwords',
  },
  outlook: {
    host: 'outlook.office365.com',
    password:
      'an app password: account.microsoft.com → Security → Advanced security options (work accounts may block IMAP)',
  },
  icloud: {
    host: 'imap.mail.me.com',
    password: 'an app-specific password: account.apple.com → Sign-In and Security → App-Specific Passwords',
  },
  qq: {
    host: 'imap.qq.com',
    password: 'the authorization code (授权码): QQ Mail → Settings → Accounts → turn on IMAP/SMTP',
  },
  '163': {
    host: 'imap.163.com',
    password: 'the authorization code (授权码): 163 Mail → Settings → POP3/SMTP/IMAP → turn on IMAP',
  },
  yahoo: {
    host: 'imap.mail.yahoo.com',
    password: 'an app password: Yahoo Account security → Generate app password',
  },
  fastmail: {
    host: 'imap.fastmail.com',
    password: 'an app password: Fastmail Settings → Privacy & Security → App passwords (IMAP access)',
  },
} as const;

export type MailWatchPreset = keyof typeof MAIL_WATCH_PRESETS;

const PRESET_NAMES = Object.keys(MAIL_WATCH_PRESETS) as [MailWatchPreset, ...MailWatchPreset[]];

const ruleSchema = z.strictObject({
  name,
  /** Sender address glob, e.g. `*@mybank.com` (case-insensitive). */
  from: z.string().trim().min(1).optional(),
  /** Words the subject must contain (case-insensitive). */
  subject: z.string().trim().min(1).optional(),
  /** Only mail in this folder (one of the account's `folders`). */
  folder: z.string().trim().min(1).optional(),
  /** Ask the small model whether the mail matters; only mail it calls important is summarised. */
  important_only: flag.default(false),
  /** Collect matching mail and summarise it once per this many minutes instead of once per mail. */
  digest_minutes: integer(1, 24 * 60).optional(),
  deliver_to: z
    .array(
      z
        .string()
        .trim()
        .regex(/^[a-z][a-z0-9_-]*:\S+$/, 'use channel:chat'),
    )
    .optional(),
});

const accountSchema = z
  .strictObject({
    name,
    enabled: flag.default(true),
    preset: z.enum(PRESET_NAMES).optional(),
    host: z.string().trim().min(1).optional(),
    port: integer(1, 65535).optional(),
    /** TLS from the start (993); false: STARTTLS (required off loopback). */
    secure: flag.optional(),
    /** The login name, usually the full address. */
    user: z.string().trim().min(1),
    password: z.string().min(1, 'set the password, e.g. password: ${MAIL_PASSWORD} (an app password)'),
    folders: z.array(z.string().trim().min(1)).min(1).default(['INBOX']),
    /** Seconds between checks when the server has no IDLE (and as a safety net with it). */
    poll_seconds: integer(10, 3600).default(60),
    rules: z.array(ruleSchema).min(1, 'add at least one rule (a rule with only a name takes every mail)'),
  })
  .superRefine((account, ctx) => {
    if (!account.preset && !account.host)
      ctx.addIssue({
        code: 'custom',
        path: ['host'],
        message: `set host (or a preset: ${PRESET_NAMES.join(', ')})`,
      });
    const seen = new Set<string>();
    account.rules.forEach((rule, index) => {
      if (seen.has(rule.name))
        ctx.addIssue({
          code: 'custom',
          path: ['rules', index, 'name'],
          message: `duplicate rule "${rule.name}"`,
        });
      seen.add(rule.name);
      if (rule.folder && !account.folders.includes(rule.folder))
        ctx.addIssue({
          code: 'custom',
          path: ['rules', index, 'folder'],
          message: `"${rule.folder}" is not watched: add it to folders (${account.folders.join(', ')})`,
        });
    });
  });

/**
 * `mail_watch:` in config.yaml — the owner's own mailboxes, watched for mail worth a summary (separate from
 * the email channel Wren chats through). Each account is read over IMAP (IDLE when the server has it);
 * each new mail the first matching rule takes becomes one summarising run (or joins a digest).
 *
 * ```yaml
 * mail_watch:
 *   - name: personal
 *     preset: gmail                 # gmail | outlook | icloud | qq | 163 | yahoo | fastmail
 *     user: me@gmail.com
 *     password: ${GMAIL_APP_PASSWORD}
 *     folders: [INBOX]
 *     rules:
 *       - { name: bank, from: "*@mybank.com" }
 *       - { name: rest, important_only: true, digest_minutes: 60 }
 * ```
 */
export const mailWatchSectionSchema = z.array(accountSchema).superRefine((accounts, ctx) => {
  const seen = new Set<string>();
  accounts.forEach((account, index) => {
    if (seen.has(account.name))
      ctx.addIssue({
        code: 'custom',
        path: [index, 'name'],
        message: `duplicate account name "${account.name}"; names must be unique`,
      });
    seen.add(account.name);
  });
});

export type MailWatchSection = z.output<typeof mailWatchSectionSchema>;

export interface MailRule {
  readonly name: string;
  /** Lower-cased sender glob. */
  readonly from?: string;
  readonly subject?: string;
  readonly folder?: string;
  readonly importantOnly: boolean;
  /** Digest window; undefined = one summary per mail. */
  readonly digestMs?: number;
  readonly deliverTo?: readonly string[];
}

export interface MailWatchAccount {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  readonly secure: boolean;
  readonly user: string;
  /** Secret: the redactor knows it. */
  readonly password: string;
  readonly folders: readonly string[];
  readonly pollMs: number;
  readonly rules: readonly MailRule[];
  /** How to get a password this provider accepts (from the preset), for login errors. */
  readonly passwordHint?: string;
}

/** Maps a parsed `mail_watch:` section (presets filled in, disabled accounts left out). Pure. */
export function toMailWatchConfig(section: MailWatchSection): MailWatchAccount[] {
  return section
    .filter((account) => account.enabled)
    .map((account) => {
      const preset = account.preset ? MAIL_WATCH_PRESETS[account.preset] : undefined;
      const port = account.port ?? 993;
      return {
        name: account.name,
        host: account.host ?? preset?.host ?? '',
        port,
        secure: account.secure ?? port === 993,
        user: account.user,
        password: account.password,
        folders: account.folders,
        pollMs: account.poll_seconds * 1000,
        rules: account.rules.map((rule) => ({
          name: rule.name,
          ...(rule.from ? { from: rule.from.toLowerCase() } : {}),
          ...(rule.subject ? { subject: rule.subject } : {}),
          ...(rule.folder ? { folder: rule.folder } : {}),
          importantOnly: rule.important_only,
          ...(rule.digest_minutes ? { digestMs: rule.digest_minutes * 60_000 } : {}),
          ...(rule.deliver_to ? { deliverTo: rule.deliver_to } : {}),
        })),
        ...(preset ? { passwordHint: preset.password } : {}),
      };
    });
}

/** The passwords of every account (for the redactor). */
export function mailWatchSecrets(accounts: readonly MailWatchAccount[]): string[] {
  return accounts.map((account) => account.password);
}
