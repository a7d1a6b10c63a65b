/**
 * The settings part of the gateway's API types (re-exported by api-types.ts): what the web app's Settings edits.
 * Types only, like api-types.ts: no imports, nothing at run time.
 */

export type Proactivity = 'off' | 'low' | 'default' | 'high';
export type GateMode = 'ask' | 'strict' | 'auto';

/** The everyday settings the web app edits (`PATCH /api/settings` takes any of them but `configError`). */
export interface Settings {
  proactivity: Proactivity;
  /** `HH:MM-HH:MM`, or null/absent when off. */
  quietHours: string | null;
  gateMode: GateMode;
  timezone: string;
  /** `briefing.at` (`HH:MM`, the owner's zone), or '' while the morning briefing is off (also sent to turn it off). */
  briefingAt: string;
  /**
   * `briefing.days`. `custom` is only shown, never sent: config.yaml names a list of days (`[mon, thu]`, see
   * {@link SettingsView.briefingDayNames}); a change that sends no `briefingDays` keeps that list.
   */
  briefingDays: BriefingDays;
  /** `briefing.weather`: a place name or `lat,lon` for the forecast, or '' for none. */
  briefingWeather: string;
  configError?: string | null;
}

export type BriefingDays = 'daily' | 'weekdays' | 'weekends' | 'custom';

/**
 * What `GET` and `PATCH /api/settings` answer: the editable settings, and the backup schedule and retention
 * ages, which are read-only here (the owner edits them in config.yaml).
 */
export interface SettingsView extends Settings {
  /** `backup:` in config.yaml. */
  backup: BackupSchedule;
  /** `retention:` in config.yaml with its defaults applied. */
  retention: RetentionDays;
  /** The days the briefing runs on, Sunday first (`['mon', 'thu']`): what `custom` stands for. */
  briefingDayNames: string[];
}

/**
 * Scheduled backups: off (`backup.every` unset), or every `every` (a readable duration such as `1 day`
 * or `12 hours`), keeping the newest `keep` scheduled archives in the absolute folder `to`.
 */
export type BackupSchedule =
  | { scheduled: false }
  | { scheduled: true; every: string; keep: number; to: string };

/** Days each kind of old row is kept before the daily prune deletes it; 0 = kept forever. */
export interface RetentionDays {
  messagesDays: number;
  outboxDays: number;
  auditDays: number;
  feedDays: number;
  execLogDays: number;
}

export type SettingsSaved = { settings: SettingsView };
