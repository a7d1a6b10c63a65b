import * as z from 'zod';

const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
const DAY_SETS: Record<string, readonly number[]> = {
  daily: [0, 1, 2, 3, 4, 5, 6],
  weekdays: [1, 2, 3, 4, 5],
  weekends: [0, 6],
};

/**
 * `briefing:` in config.yaml — the morning briefing, off until `at` is set (in onboarding, by asking Wren
 * "brief me every weekday at 7:30", or here):
 *
 * ```yaml
 * briefing:
 *   at: "07:30"          # local time (agent.timezone); absent = no briefing
 *   days: weekdays       # daily | weekdays | weekends | [mon, wed, fri]
 *   deliver_to: [telegram:123]   # default: proactive.deliver_to
 *   weather: Berlin      # optional: today's forecast for a place name or "lat,lon" (web.weather's provider)
 * ```
 */
export const briefingSectionSchema = z.strictObject({
  at: z
    .string()
    .trim()
    .regex(/^([01]?\d|2[0-3]):[0-5]\d$/, 'use a local time such as "07:30"')
    .optional(),
  days: z
    .union([
      z.enum(['daily', 'weekdays', 'weekends']),
      z.array(z.enum(DAY_NAMES)).min(1, 'name at least one day, such as [mon, wed, fri]'),
    ])
    .default('daily'),
  deliver_to: z.array(z.string().trim().min(1)).optional(),
  weather: z.string().trim().min(1).max(200).optional(),
});

export type BriefingSection = z.output<typeof briefingSectionSchema>;

export interface BriefingConfig {
  /** `HH:MM` local time; undefined = the briefing is off. */
  readonly at?: string;
  /** Days of the week it runs on, 0 = Sunday. */
  readonly days: readonly number[];
  /** Absent: `proactive.deliver_to`. */
  readonly deliverTo?: readonly string[];
  /** A place name or `lat,lon` for today's forecast; absent: no weather. */
  readonly weather?: string;
}

/** Maps a parsed `briefing:` section. Pure. */
export function toBriefingConfig(parsed: BriefingSection): BriefingConfig {
  const days =
    typeof parsed.days === 'string'
      ? DAY_SETS[parsed.days]!
      : [...new Set(parsed.days.map((day) => DAY_NAMES.indexOf(day)))].sort();
  return {
    ...(parsed.at === undefined ? {} : { at: parsed.at.padStart(5, '0') }),
    days,
    ...(parsed.deliver_to ? { deliverTo: parsed.deliver_to } : {}),
    ...(parsed.weather ? { weather: parsed.weather } : {}),
  };
}

/** The cron expression of a briefing that is on (`30 7 * * 1-5` style, read in the owner's zone). */
export function briefingCron(config: BriefingConfig): string | undefined {
  if (!config.at) return undefined;
  const [hour, minute] = config.at.split(':').map(Number);
  return `${minute} ${hour} * * ${config.days.join(',')}`;
}
