import * as z from 'zod';
import { fromString } from '../util/from-string.js';

const integer = (min: number, max: number) => z.preprocess(fromString, z.number().int().min(min).max(max));
const flag = z.preprocess(fromString, z.boolean());

export const PROACTIVITY = ['off', 'low', 'default', 'high'] as const;
export type Proactivity = (typeof PROACTIVITY)[number];

/** `HH:MM-HH:MM`, 24-hour clock, may wrap midnight (`22:30-07:00`). */
const QUIET_HOURS = /^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]):([0-5]\d)$/;

/** A delivery target: `channel:chat` (`telegram:123`, `cli:terminal`) or `webhook:<name>`. */
export const TARGET = /^[a-z][a-z0-9_-]*:\S+$/;

const webhook = z.strictObject({
  url: z
    .string()
    .trim()
    .refine((text) => /^https?:\/\//.test(text) && URL.canParse(text), {
      message: 'must be an http(s) URL such as https://ntfy.sh/my-topic',
    }),
  headers: z.record(z.string(), z.string()).default({}),
});

/**
 * The `proactive:` section of config.yaml (snake_case, strict, every key defaulted):
 *
 * ```yaml
 * proactive:
 *   enabled: true                # the scheduler runs (in `wren start`, or `wren chat` alone)
 *   proactivity: default         # off | low | default | high: goal passes ×∞ ×2 ×1 ×0.5, how readily to speak
 *   quiet_hours: "22:30-07:00"   # autonomous runs wait until it ends (reminders do not)
 *   deliver_to: []               # where autonomous results go besides the feed (default: nowhere else)
 *   heartbeat_minutes: 30        # HEARTBEAT.md checks, only while it has active items; 0 = off
 *   goal_pass_minutes: 60        # base interval of goal passes (scaled by proactivity, 5 min–24 h)
 *   webhooks:                    # targets `webhook:<name>`: POST JSON with an Idempotency-Key
 *     ntfy: { url: "https://ntfy.sh/my-topic", headers: { Authorization: "Bearer ${NTFY_TOKEN}" } }
 *   push: false                  # web push to subscribed browsers (the web app subscribes them)
 * ```
 */
export const proactiveSectionSchema = z.strictObject({
  enabled: flag.default(true),
  proactivity: z.enum(PROACTIVITY).default('default'),
  quiet_hours: z
    .string()
    .trim()
    .regex(QUIET_HOURS, 'use HH:MM-HH:MM in 24-hour time, e.g. 22:30-07:00')
    .optional(),
  deliver_to: z.array(z.string().trim().regex(TARGET, 'use channel:chat or webhook:name')).default([]),
  heartbeat_minutes: integer(0, 24 * 60).default(30),
  goal_pass_minutes: integer(5, 24 * 60).default(60),
  webhooks: z
    .record(z.string().regex(/^[a-z0-9_-]+$/i, 'webhook names are letters, digits, _ and -'), webhook)
    .default({}),
  push: flag.default(false),
});

export type ProactiveSection = z.output<typeof proactiveSectionSchema>;

/** The proactive settings as the code uses them (camelCase, milliseconds). */
export interface ProactiveConfig {
  readonly enabled: boolean;
  readonly proactivity: Proactivity;
  /** Minutes after midnight: quiet from `start` until `end` (wrapping midnight when start > end). */
  readonly quietHours?: { readonly start: number; readonly end: number };
  readonly deliverTo: readonly string[];
  /** 0 = no heartbeat. */
  readonly heartbeatMs: number;
  /** The goal-pass interval after the proactivity factor; undefined when proactivity is off. */
  readonly goalPassMs?: number;
  readonly webhooks: Readonly<
    Record<string, { readonly url: string; readonly headers: Readonly<Record<string, string>> }>
  >;
  readonly push: boolean;
}

const FACTOR: Record<Proactivity, number | undefined> = { off: undefined, low: 2, default: 1, high: 0.5 };
const MINUTE = 60_000;

/** Maps a parsed `proactive:` section to ProactiveConfig. Pure. */
export function toProactiveConfig(parsed: ProactiveSection): ProactiveConfig {
  const quiet = parsed.quiet_hours ? QUIET_HOURS.exec(parsed.quiet_hours) : null;
  const factor = FACTOR[parsed.proactivity];
  return {
    enabled: parsed.enabled,
    proactivity: parsed.proactivity,
    ...(quiet
      ? {
          quietHours: {
            start: Number(quiet[1]) * 60 + Number(quiet[2]),
            end: Number(quiet[3]) * 60 + Number(quiet[4]),
          },
        }
      : {}),
    deliverTo: [...parsed.deliver_to],
    heartbeatMs: parsed.heartbeat_minutes * MINUTE,
    ...(factor === undefined
      ? {}
      : {
          goalPassMs: Math.min(
            24 * 60 * MINUTE,
            Math.max(5 * MINUTE, parsed.goal_pass_minutes * MINUTE * factor),
          ),
        }),
    webhooks: parsed.webhooks,
    push: parsed.push,
  };
}

/** The defaults, as if `proactive:` were absent. */
export function defaultProactiveConfig(): ProactiveConfig {
  return toProactiveConfig(proactiveSectionSchema.parse({}));
}

/**
 * Whether `at` (UTC ms) falls in the quiet hours read in `timezone`, and if so when they end (UTC ms).
 * Start == end means no quiet hours. Pure.
 */
export function quietUntil(
  quiet: ProactiveConfig['quietHours'],
  at: number,
  timezone: string,
): number | undefined {
  if (!quiet || quiet.start === quiet.end) return undefined;
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: timezone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const minute =
    Number(parts.find((part) => part.type === 'hour')?.value) * 60 +
    Number(parts.find((part) => part.type === 'minute')?.value);
  const inside =
    quiet.start < quiet.end
      ? minute >= quiet.start && minute < quiet.end
      : minute >= quiet.start || minute < quiet.end;
  if (!inside) return undefined;
  const minutesLeft = (quiet.end - minute + 24 * 60) % (24 * 60);
  // Whole minutes: the end is at the start of its minute (a DST change inside quiet hours shifts it by that hour).
  return at - (at % MINUTE) + minutesLeft * MINUTE;
}
