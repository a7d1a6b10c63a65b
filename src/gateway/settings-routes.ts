import { Hono } from 'hono';
import { type Document, isMap, isScalar, YAMLMap } from 'yaml';
import { z } from 'zod';
import { type BriefingConfig, briefingSectionSchema } from '../config/briefing-config.js';
import { editConfig } from '../config/config-writer.js';
import { configPath, loadConfig } from '../config/load-config.js';
import type { BackupConfig, RetentionConfig } from '../config/operations-config.js';
import type { WrenConfig } from '../config/wren-config.js';
import { GATE_MODES } from '../gate/gate-config.js';
import { PROACTIVITY, proactiveSectionSchema } from '../proactive/proactive-config.js';
import { ConfigError } from '../util/config-error.js';
import type { Env } from '../util/interpolate.js';
import type * as Api from './api-types.js';
import { ENV_REFERENCE_REFUSED, hasEnvReference } from './has-env-reference.js';
import { problem } from './problem.js';
import { limitBody, validBody } from './route-input.js';

export interface SettingsRouteOptions {
  home: string;
  /** The environment `${VAR}`s resolve from (over `<home>/.env`), as for loading config.yaml. */
  env: Env;
  /** The configuration in force: what `GET` shows while config.yaml itself cannot be loaded. */
  config: () => WrenConfig;
}

/** The everyday settings the web app edits, as `GET /api/settings` answers them. */
export interface Settings {
  /** `proactive.proactivity`. */
  proactivity: (typeof PROACTIVITY)[number];
  /** `proactive.quiet_hours` as `HH:MM-HH:MM`, or null when there are none. */
  quietHours: string | null;
  /** `gate.mode`. */
  gateMode: (typeof GATE_MODES)[number];
  /** `agent.timezone`, or the system's zone when config.yaml names none. */
  timezone: string;
  /** `briefing.at` as `HH:MM`, or '' while the morning briefing is off. */
  briefingAt: string;
  /** `briefing.days` as its word, or `custom` for a list of days (named in `briefingDayNames`). */
  briefingDays: Api.BriefingDays;
  /** `briefing.weather`, or '' for none. */
  briefingWeather: string;
  /** The days the briefing runs on, Sunday first. */
  briefingDayNames: string[];
  /** Why config.yaml cannot be loaded as it is now (the values are then the config in force); else null. */
  configError: string | null;
  /** `backup:`, read-only (edited in config.yaml): see {@link backupSchedule}. */
  backup: Api.BackupSchedule;
  /** `retention:` with its defaults applied, read-only (edited in config.yaml). */
  retention: Api.RetentionDays;
}

const literal = (text: string) => !hasEnvReference(text);

/** The free-text settings must stay literal in config.yaml (the others are fixed words). */
const changes = z.strictObject({
  proactivity: z.enum(PROACTIVITY).optional(),
  quietHours: z.string().trim().max(64).refine(literal, ENV_REFERENCE_REFUSED).nullable().optional(),
  gateMode: z.enum(GATE_MODES).optional(),
  timezone: z.string().trim().min(1).max(100).refine(literal, ENV_REFERENCE_REFUSED).nullable().optional(),
  /** '' or null turns the briefing off (its days and weather stay for the next time it is turned on). */
  briefingAt: z.string().trim().max(16).nullable().optional(),
  /** Only the words: a custom list of days is edited in config.yaml (choosing a word here replaces it). */
  briefingDays: z.enum(['daily', 'weekdays', 'weekends']).optional(),
  briefingWeather: z.string().trim().max(200).refine(literal, ENV_REFERENCE_REFUSED).nullable().optional(),
});

/** A change to the settings, as `PATCH /api/settings` takes it (see {@link saveSettings}). */
export type SettingChanges = z.output<typeof changes>;
type Changes = SettingChanges;

/** Where each setting lives in config.yaml: [section, key]. */
const KEYS = {
  proactivity: ['proactive', 'proactivity'],
  quietHours: ['proactive', 'quiet_hours'],
  gateMode: ['gate', 'mode'],
  timezone: ['agent', 'timezone'],
  briefingAt: ['briefing', 'at'],
  briefingDays: ['briefing', 'days'],
  briefingWeather: ['briefing', 'weather'],
} as const satisfies Record<keyof Changes, readonly [string, string]>;

/** The refusal of a quiet-hours value that is not `HH:MM-HH:MM` (checked before config.yaml is read). */
export const QUIET_HOURS_REFUSED =
  'Quiet hours must look like 22:00-07:00 (HH:MM-HH:MM, 24-hour time); nothing was saved.';

/**
 * The validator's message for the web app: config.yaml's path is named once at most (the writer and the
 * loader each put it in front of their part), and the wrapper's wording is shortened.
 */
export function settingsRefusal(message: string, file: string): string {
  const bare = message.split(`${file}: `).join('').split(file).join('config.yaml');
  return bare.replace(
    /^change not saved, it would make the config invalid:\s*/,
    'Not saved — config.yaml would be invalid: ',
  );
}

/** The refusal of a briefing time that is not `HH:MM` (checked before config.yaml is read). */
export const BRIEFING_AT_REFUSED =
  'The briefing time must look like 07:30 (HH:MM, 24-hour time); nothing was saved.';

const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;

/** The days the briefing runs on by name, Sunday first (`['mon', 'thu']`). Pure. */
export const briefingDayNames = (briefing: BriefingConfig): string[] =>
  briefing.days.map((day) => DAY_NAMES[day]!);
const DAY_WORDS: ReadonlyArray<[Api.BriefingDays, string]> = [
  ['daily', '0,1,2,3,4,5,6'],
  ['weekdays', '1,2,3,4,5'],
  ['weekends', '0,6'],
];

/**
 * The word for the days the briefing runs on (read from the loaded config, so `[sat, sun]` shows as
 * `weekends`: the same days), or `custom` for any other list. Pure.
 */
function briefingDaysWord(briefing: BriefingConfig): Api.BriefingDays {
  const days = briefing.days.join(',');
  return DAY_WORDS.find(([, list]) => list === days)?.[0] ?? 'custom';
}

const clock = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const UNITS = [
  ['week', 7 * DAY],
  ['day', DAY],
  ['hour', 60 * MINUTE],
  ['minute', MINUTE],
] as const;

/** `ms` in the largest unit that divides it whole: `1 day`, `12 hours`, `36 hours`, `90 minutes`. Pure. */
function durationText(ms: number): string {
  const [unit, size] = UNITS.find(([, size]) => ms % size === 0) ?? ['second', 1000];
  const count = Math.round(ms / size);
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

/**
 * The schedule of `backup:`: off while `backup.every` is unset (also when there is no `backup:` at all);
 * else the interval, `keep`, and `backup.dir` — the folder config loading resolved against the home, the
 * one the backup service writes scheduled archives to and prunes.
 */
function backupSchedule(backup: BackupConfig): Api.BackupSchedule {
  if (backup.everyMs === undefined) return { scheduled: false };
  return { scheduled: true, every: durationText(backup.everyMs), keep: backup.keep, to: backup.dir };
}

/** `config.retention` (defaults applied at loading, as the retention source uses it) in whole days. */
function retentionDays(retention: RetentionConfig): Api.RetentionDays {
  const days = (ms: number) => Math.round(ms / DAY);
  return {
    messagesDays: days(retention.messagesMs),
    outboxDays: days(retention.outboxMs),
    auditDays: days(retention.auditMs),
    feedDays: days(retention.feedMs),
    execLogDays: days(retention.execLogMs),
  };
}

function toSettings(config: WrenConfig, configError: string | null): Settings {
  const quiet = config.proactive.quietHours;
  return {
    proactivity: config.proactive.proactivity,
    quietHours: quiet ? `${clock(quiet.start)}-${clock(quiet.end)}` : null,
    gateMode: config.gate.mode,
    timezone: config.agent.timezone,
    briefingAt: config.briefing.at ?? '',
    briefingDays: briefingDaysWord(config.briefing),
    briefingWeather: config.briefing.weather ?? '',
    briefingDayNames: briefingDayNames(config.briefing),
    configError,
    backup: backupSchedule(config.backup),
    retention: retentionDays(config.retention),
  };
}

/**
 * The section `name` of the document as a map, created when absent or empty (`proactive:` with nothing
 * after it). Its comments are kept.
 * @throws ConfigError when the section holds something else (the config is broken there; fixed by hand).
 */
function sectionOf(doc: Document, name: string, file: string): YAMLMap {
  const node = doc.get(name, true);
  if (isMap(node)) return node;
  if (node !== undefined && !(isScalar(node) && node.value === null)) {
    throw new ConfigError(`${file}: ${name}: must be a mapping of settings; fix it by hand first`, {
      file,
      keyPath: name,
    });
  }
  const map = new YAMLMap();
  if (node) {
    map.commentBefore = node.commentBefore;
    map.comment = node.comment;
  }
  doc.set(name, map);
  return map;
}

/**
 * Writes `value` at `section.key`, or removes the key for null. An existing scalar keeps its node, so a
 * comment on its line survives (a `${VAR}` there is replaced: the owner chose a value).
 */
function write(doc: Document, [section, key]: readonly [string, string], value: string | null, file: string) {
  if (value === null) {
    const map = doc.get(section, true);
    if (!isMap(map)) return;
    map.delete(key);
    if (map.items.length === 0 && !map.commentBefore && !map.comment) doc.delete(section);
    return;
  }
  const map = sectionOf(doc, section, file);
  const current = map.get(key, true);
  if (isScalar(current)) current.value = value;
  else map.set(key, doc.createNode(value));
}

/** What config.yaml holds for a setting's value: '' (and null) clear the free texts; a time gets its `0`. */
function yamlValue(name: keyof Changes, value: string | null): string | null {
  if (value === null || (value === '' && (name === 'briefingAt' || name === 'briefingWeather'))) return null;
  return name === 'briefingAt' ? value.padStart(5, '0') : value;
}

/**
 * Writes `changes` (each key given; `undefined` = left as it is) into config.yaml through `editConfig`.
 * @returns null when saved (or nothing was to change), else the plain sentence why not — nothing is written
 * then. @throws what editConfig throws besides ConfigError.
 */
export function saveSettings(home: string, env: Env, changes: SettingChanges): string | null {
  const quiet = changes.quietHours;
  if (typeof quiet === 'string' && !proactiveSectionSchema.shape.quiet_hours.safeParse(quiet).success)
    return QUIET_HOURS_REFUSED;
  const at = changes.briefingAt;
  if (at && !briefingSectionSchema.shape.at.safeParse(at).success) return BRIEFING_AT_REFUSED;
  const given = Object.entries(changes).filter(([, value]) => value !== undefined) as Array<
    [keyof Changes, string | null]
  >;
  if (given.length === 0) return null;
  const file = configPath(home);
  try {
    editConfig(
      home,
      (doc) => {
        for (const [name, value] of given) write(doc, KEYS[name], yamlValue(name, value), file);
      },
      env,
    );
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return settingsRefusal(error.message, file);
  }
  return null;
}

/**
 * `GET /api/settings` and `PATCH /api/settings`: proactivity, quiet hours, gate mode, time zone and the
 * morning briefing's time, days and weather place, read from and written to config.yaml (the single source of truth; the running app reloads it). A change goes
 * through `editConfig`: comments, layout and `${VAR}` placeholders survive, and the whole resulting file is
 * validated as loading it would be — an invalid change writes nothing and answers 400 with the validator's
 * message. A value holding `${` is refused (400) before the file is read: see {@link hasEnvReference}. Both
 * answer from the file, not from the config in force (the reload lags by a moment). The answers also carry
 * the backup schedule and the retention ages, read-only: the owner edits those in config.yaml.
 */
export function settingsRoutes(options: SettingsRouteOptions): Hono {
  const app = new Hono();
  const { home, env } = options;

  const read = (): Settings => {
    try {
      return toSettings(loadConfig(home, env), null);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return toSettings(options.config(), error.message);
    }
  };

  app.get('/api/settings', (c) => c.json(read() satisfies Api.SettingsView));

  app.patch('/api/settings', limitBody(16 * 1024), async (c) => {
    const parsed = await validBody(c, changes);
    if (!parsed.ok) return parsed.response;
    const refusal = saveSettings(home, env, parsed.value);
    if (refusal) return c.json(problem('bad_request', refusal), 400);
    return c.json({ settings: read() } satisfies Api.SettingsSaved);
  });
  return app;
}
