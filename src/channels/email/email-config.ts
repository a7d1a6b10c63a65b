import * as z from 'zod';
import { fromString } from '../../util/from-string.js';
import { type ChannelAccess, channelAccessShape, toChannelAccess } from '../channel-access.js';

const flag = z.preprocess(fromString, z.boolean());
const integer = (min: number, max: number) => z.preprocess(fromString, z.number().int().min(min).max(max));

/** Mail providers whose hosts are known, with how to get a password IMAP accepts. */
export const EMAIL_PRESETS = {
  gmail: {
    imap: { host: 'imap.gmail.com', port: 993, secure: true },
    smtp: { host: 'smtp.gmail.com', port: 465, secure: true },
    authserv: 'mx.google.com',
    password:
      'an app password: Google Account → Security → 2-Step Verification → App passwords (your normal password is refused)',
  },
  outlook: {
    imap: { host: 'outlook.office365.com', port: 993, secure: true },
    smtp: { host: 'smtp-mail.outlook.com', port: 587, secure: false },
    authserv: undefined,
    password:
      'an app password (account.microsoft.com → Security → Advanced security options; needs two-step verification); Microsoft 365 work accounts often block password IMAP entirely',
  },
  qq: {
    imap: { host: 'imap.qq.com', port: 993, secure: true },
    smtp: { host: 'smtp.qq.com', port: 465, secure: true },
    authserv: undefined,
    password:
      'the authorization code (授权码) from QQ Mail → Settings → Accounts, after turning on IMAP/SMTP',
  },
} as const;

const server = z.strictObject({
  host: z.string().trim().min(1).optional(),
  port: integer(1, 65535).optional(),
  /** TLS from the start (993/465); false: STARTTLS when the server offers it. */
  secure: flag.optional(),
  /** Login name when it is not `address`. */
  user: z.string().trim().min(1).optional(),
});

const watchRule = z.strictObject({
  name: z.string().regex(/^[a-z0-9_-]{1,40}$/i, 'use letters, digits, _ and -'),
  /** Sender address glob, e.g. `*@mybank.com`. */
  from: z.string().trim().min(1).optional(),
  /** Words the subject must contain (case-insensitive). */
  subject: z.string().trim().min(1).optional(),
  deliver_to: z
    .array(
      z
        .string()
        .trim()
        .regex(/^[a-z][a-z0-9_-]*:\S+$/, 'use channel:chat'),
    )
    .optional(),
});

/**
 * `channels.email`: an IMAP mailbox as a channel (replies over SMTP). Owner and `allow_from` are mail
 * addresses, and a mail counts as theirs only when the receiving server's topmost Authentication-Results
 * passes for the From domain (see authentication-results.ts).
 *
 * ```yaml
 * channels:
 *   email:
 *     preset: gmail                      # gmail | outlook | qq fill in the servers
 *     address: my.assistant@gmail.com    # the mailbox Wren reads and sends from
 *     password: ${EMAIL_PASSWORD}        # an app password
 *     owner: [me@example.com]
 *     watch:                             # summarise matching mail to you (any sender)
 *       - { name: bank, from: "*@mybank.com" }
 * ```
 */
export const emailSectionSchema = z
  .strictObject({
    enabled: flag.default(true),
    preset: z.enum(['gmail', 'outlook', 'qq']).optional(),
    address: z.string().trim().toLowerCase().email('use the mailbox address, e.g. me@example.com'),
    password: z.string().min(1, 'set the mailbox password, e.g. password: ${EMAIL_PASSWORD}'),
    imap: server.default({}),
    smtp: server.default({}),
    mailbox: z.string().trim().min(1).default('INBOX'),
    ...channelAccessShape('email', {
      pattern: /^[^@\s]+@[^@\s]+\.[^@\s]+$/,
      explain: 'write the full mail address (me@example.com).',
    }),
    /** Seconds between checks when the server has no IDLE (and as a safety net with it). */
    poll_seconds: integer(10, 3600).default(60),
    require_authentication: flag.default(true),
    trusted_authserv_ids: z.array(z.string().trim().min(1)).optional(),
    watch: z.array(watchRule).default([]),
    max_file_mb: integer(1, 100).default(20),
  })
  .superRefine((section, ctx) => {
    for (const key of ['imap', 'smtp'] as const) {
      if (!section.preset && !section[key].host)
        ctx.addIssue({
          code: 'custom',
          path: [key, 'host'],
          message: `set ${key}.host (or a preset: gmail, outlook, qq)`,
        });
    }
  });

export interface MailServer {
  readonly host: string;
  readonly port: number;
  readonly secure: boolean;
  readonly user: string;
}

export interface EmailConfig {
  readonly enabled: boolean;
  readonly address: string;
  /** Secret: the redactor knows it. */
  readonly password: string;
  readonly imap: MailServer;
  readonly smtp: MailServer;
  readonly mailbox: string;
  readonly access: ChannelAccess;
  readonly pollMs: number;
  readonly requireAuthentication: boolean;
  readonly trustedAuthservIds: readonly string[];
  readonly watch: ReadonlyArray<{ name: string; from?: string; subject?: string; deliverTo?: string[] }>;
  readonly maxFileBytes: number;
}

export function toEmailConfig(section: z.output<typeof emailSectionSchema>): EmailConfig {
  const preset = section.preset ? EMAIL_PRESETS[section.preset] : undefined;
  const resolve = (key: 'imap' | 'smtp'): MailServer => {
    const own = section[key];
    const fallback = preset?.[key];
    const port = own.port ?? fallback?.port ?? (key === 'imap' ? 993 : 465);
    return {
      host: own.host ?? fallback?.host ?? '',
      port,
      secure: own.secure ?? fallback?.secure ?? (port === 993 || port === 465),
      user: own.user ?? section.address,
    };
  };
  const lower = (ids: string[]) => ids.map((id) => (id === '*' ? id : id.toLowerCase()));
  return {
    enabled: section.enabled,
    address: section.address,
    password: section.password,
    imap: resolve('imap'),
    smtp: resolve('smtp'),
    mailbox: section.mailbox,
    access: toChannelAccess({
      ...section,
      owner: lower(section.owner),
      allow_from: lower(section.allow_from),
    }),
    pollMs: section.poll_seconds * 1000,
    requireAuthentication: section.require_authentication,
    trustedAuthservIds: section.trusted_authserv_ids ?? (preset?.authserv ? [preset.authserv] : []),
    watch: section.watch.map((rule) => ({
      name: rule.name,
      ...(rule.from ? { from: rule.from.toLowerCase() } : {}),
      ...(rule.subject ? { subject: rule.subject } : {}),
      ...(rule.deliver_to ? { deliverTo: rule.deliver_to } : {}),
    })),
    maxFileBytes: section.max_file_mb * 1024 * 1024,
  };
}
