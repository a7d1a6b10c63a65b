import { readFileSync } from 'node:fs';
import { type Document, isMap, isScalar, parseDocument, Scalar, type YAMLMap } from 'yaml';
import * as z from 'zod';
import { writeFileAtomic } from '../util/atomic-write.js';
import { closestMatch } from '../util/closest-match.js';
import { ConfigError } from '../util/config-error.js';
import { type ConfigIssue, configErrorFrom, issuesFromZod } from '../util/config-issues.js';
import { validateCron } from '../util/schedule.js';
import { isTimeZone } from '../util/time-zone.js';
import { TARGET } from './proactive-config.js';

/** One cron job as written in jobs.yaml; defaults (time zone, targets) are applied when it runs. */
export interface CronJobDefinition {
  /** Its key under `jobs:`, `[a-z0-9-]{1,40}`. */
  name: string;
  /** Five fields (minute hour day month weekday) or a nickname such as `@daily`. */
  cron: string;
  /** IANA zone the cron is read in; absent: `agent.timezone`. */
  timezone?: string;
  /** What the agent is asked to do at each occurrence. */
  prompt: string;
  /** Where results go besides the feed; absent: `proactive.deliver_to`; `[]`: the feed only. */
  deliverTo?: string[];
  enabled: boolean;
}

/** How jobs.yaml is named in messages (the user knows where their home is). */
export const JOBS_FILE = 'jobs.yaml';

/** A job name: lowercase letters, digits and `-`, 1–40 characters. */
export const JOB_NAME = /^[a-z0-9-]{1,40}$/;

/** What a new jobs.yaml starts with: how the file works, and no jobs. */
export const JOBS_STARTER = `# Cron jobs: prompts Wren runs on a schedule, e.g. a morning briefing. Wren re-reads this file when it
# changes (no restart); an invalid edit is reported and the previous jobs stay in force until it is fixed.
#
#   jobs:
#     daily-briefing:                  # the name: a-z, 0-9 and "-", at most 40 characters
#       cron: "0 8 * * *"              # minute hour day month weekday ("30 7 * * 1-5" = 07:30 on weekdays)
#       timezone: Europe/Berlin        # optional; default: agent.timezone in config.yaml
#       prompt: "Give me a short briefing: open tasks, today's reminders, anything due."
#       deliver_to: [telegram:123]     # optional; default: proactive.deliver_to; [] = the feed only
#       enabled: true                  # optional; false keeps the job but does not run it
#
# A job missed while Wren was not running runs once, late, when it starts again.
jobs: {}
`;

const CRON_EXAMPLES =
  'use 5 fields "minute hour day-of-month month day-of-week", e.g. "0 8 * * *" (08:00 every day), ' +
  '"30 7 * * 1-5" (07:30 on weekdays), "0 */2 * * *" (every 2 hours), "0 9 1 * *" (09:00 on the 1st)';

/**
 * Why `expression` is not a usable job schedule in `timezone`, with examples, or undefined when it is.
 * Five fields or an `@` nickname: a seconds field (six fields) is refused, a job is a model run.
 */
export function checkCron(expression: string, timezone = 'UTC'): string | undefined {
  const text = expression.trim();
  const fields = text.split(/\s+/).length;
  if (!text.startsWith('@') && fields !== 5) {
    return `"${text}" has ${fields} field${fields === 1 ? '' : 's'}, not 5; ${CRON_EXAMPLES}`;
  }
  const error = validateCron(text, timezone);
  return error ? `"${text}" is not a valid cron expression (${error}); ${CRON_EXAMPLES}` : undefined;
}

/** Why `name` is not a usable job name, or undefined. */
export function checkJobName(name: string): string | undefined {
  return JOB_NAME.test(name)
    ? undefined
    : `"${name}" is not a valid job name: use 1–40 lowercase letters, digits and "-", e.g. daily-briefing`;
}

const jobSchema = z.strictObject({
  cron: z.string().trim().min(1),
  timezone: z
    .string()
    .trim()
    .refine(isTimeZone, 'unknown time zone; use an IANA name such as Europe/Berlin or America/New_York')
    .optional(),
  prompt: z.string().trim().min(1),
  // `deliver_to: telegram:123` is read as a one-item list.
  deliver_to: z
    .preprocess(
      (value) => (typeof value === 'string' ? [value] : value),
      z.array(z.string().trim().regex(TARGET, 'use channel:chat (telegram:123) or webhook:name')),
    )
    .optional(),
  enabled: z.boolean().default(true),
});

const JOB_KEYS = Object.keys(jobSchema.shape);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The issues of one job entry, key paths starting at `jobs.NAME`. */
function jobIssues(name: string, raw: unknown): { issues: ConfigIssue[]; job?: CronJobDefinition } {
  const at = ['jobs', name];
  const nameProblem = checkJobName(name);
  if (nameProblem) return { issues: [{ path: at, message: nameProblem }] };
  if (!isRecord(raw)) return { issues: [{ path: at, message: 'must be a mapping with cron and prompt' }] };
  const parsed = jobSchema.safeParse(raw);
  if (!parsed.success) {
    const unknown: ConfigIssue[] = [];
    const rest = parsed.error.issues.filter((issue) => {
      if (issue.code !== 'unrecognized_keys') return true;
      for (const key of issue.keys) {
        const guess = closestMatch(key, JOB_KEYS);
        const hint = guess ? ` (did you mean ${guess}?)` : `; allowed keys: ${JOB_KEYS.join(', ')}`;
        unknown.push({ path: [...at, key], message: `unknown key${hint}` });
      }
      return false;
    });
    const others = rest.length ? issuesFromZod(new z.ZodError(rest), raw) : [];
    return {
      issues: [...unknown, ...others.map((issue) => ({ ...issue, path: [...at, ...issue.path] }))],
    };
  }
  const data = parsed.data;
  const cronProblem = checkCron(data.cron, data.timezone);
  if (cronProblem) return { issues: [{ path: [...at, 'cron'], message: cronProblem }] };
  return {
    issues: [],
    job: {
      name,
      cron: data.cron,
      ...(data.timezone ? { timezone: data.timezone } : {}),
      prompt: data.prompt,
      ...(data.deliver_to ? { deliverTo: data.deliver_to } : {}),
      enabled: data.enabled,
    },
  };
}

function parseYaml(text: string, path: string): Document {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  const error = doc.errors[0];
  if (error) {
    const position = error.linePos?.[0];
    const where = position ? `${JOBS_FILE}:${position.line}:${position.col}` : JOBS_FILE;
    const what = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    throw new ConfigError(`${where}: YAML syntax error: ${what}; fix the file and try again`, {
      file: path,
      cause: error,
    });
  }
  return doc;
}

/**
 * Parses and validates jobs.yaml text. Empty text, or `jobs:` with nothing under it, is no jobs.
 * @throws ConfigError listing each problem as `jobs.yaml: jobs.NAME.key: what is wrong` (YAML syntax errors
 * with line and column); `path` becomes the error's `file`.
 */
export function parseJobsText(text: string, path = JOBS_FILE): CronJobDefinition[] {
  const raw = parseYaml(text, path).toJS() as unknown;
  if (raw === null || raw === undefined) return [];
  if (!isRecord(raw)) {
    throw new ConfigError(`${JOBS_FILE}: the top level must be a mapping with one key, jobs`, { file: path });
  }
  const issues: ConfigIssue[] = Object.keys(raw)
    .filter((key) => key !== 'jobs')
    .map((key) => ({ path: [key], message: 'unknown key (the jobs go under "jobs:")' }));
  const entries = raw['jobs'] ?? {};
  if (!isRecord(entries)) issues.push({ path: ['jobs'], message: 'must be a mapping of jobs by name' });
  const jobs: CronJobDefinition[] = [];
  for (const [name, entry] of Object.entries(isRecord(entries) ? entries : {})) {
    const result = jobIssues(name, entry);
    issues.push(...result.issues);
    if (result.job) jobs.push(result.job);
  }
  if (issues.length > 0) {
    const error = configErrorFrom(JOBS_FILE, issues);
    throw new ConfigError(error.message, {
      file: path,
      ...(error.keyPath ? { keyPath: error.keyPath } : {}),
    });
  }
  return jobs;
}

/** The file's text, or undefined when it does not exist. @throws ConfigError when it cannot be read. */
function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(`${path}: cannot be read (${(error as Error).message})`, { file: path });
  }
}

/**
 * Reads and validates jobs.yaml at `path`; a missing file is no jobs.
 * @throws ConfigError (see {@link parseJobsText}).
 */
export function readJobsFile(path: string): CronJobDefinition[] {
  const text = readText(path);
  return text === undefined ? [] : parseJobsText(text, path);
}

/** A change to one job: a value sets the key, `null` removes an optional key, undefined leaves it. */
export interface JobPatch {
  cron?: string;
  timezone?: string | null;
  prompt?: string;
  deliverTo?: string[] | null;
  enabled?: boolean;
}

function jobsMap(doc: Document, path: string): YAMLMap {
  const node = doc.get('jobs', true);
  if (isMap(node)) {
    if (node.items.length === 0) node.flow = false; // `jobs: {}` becomes a block mapping
    return node;
  }
  if (node === undefined || node === null || (isScalar(node) && node.value === null)) {
    const map = doc.createNode({}) as YAMLMap;
    map.flow = false;
    doc.set('jobs', map);
    return map;
  }
  throw new ConfigError(`${JOBS_FILE}: jobs: must be a mapping of jobs by name; fix it by hand first`, {
    file: path,
    keyPath: 'jobs',
  });
}

/** Sets `key` to a scalar, changing the existing node in place so its comment survives. */
function setScalar(entry: YAMLMap, key: string, value: string | boolean, quoted = false): void {
  const node = entry.get(key, true);
  const scalar = isScalar(node) ? node : new Scalar(value);
  scalar.value = value;
  if (quoted) scalar.type = Scalar.QUOTE_DOUBLE;
  if (scalar !== node) entry.set(key, scalar);
}

function applyPatch(doc: Document, entry: YAMLMap, patch: JobPatch): void {
  if (patch.cron !== undefined) setScalar(entry, 'cron', patch.cron.trim(), true);
  if (patch.timezone === null) entry.delete('timezone');
  else if (patch.timezone !== undefined) setScalar(entry, 'timezone', patch.timezone.trim());
  if (patch.prompt !== undefined) setScalar(entry, 'prompt', patch.prompt.trim());
  if (patch.deliverTo === null) entry.delete('deliver_to');
  else if (patch.deliverTo !== undefined) {
    const list = doc.createNode(patch.deliverTo.map((target) => target.trim()));
    list.flow = true;
    entry.set('deliver_to', list);
  }
  if (patch.enabled !== undefined) setScalar(entry, 'enabled', patch.enabled);
}

/**
 * Edits jobs.yaml through the YAML Document API (comments and layout of the rest survive), validates the
 * result as a whole and writes it atomically with mode 0600. A missing file starts from {@link JOBS_STARTER}.
 * `edit` gets the `jobs:` mapping. Nothing is written when anything throws.
 * @throws ConfigError when the current file has a YAML syntax error, or the edited file would be invalid
 * (naming the job and key); errors thrown by `edit` propagate.
 */
export function editJobsFile(
  path: string,
  edit: (jobs: YAMLMap, doc: Document) => void,
): CronJobDefinition[] {
  const doc = parseYaml(readText(path) ?? JOBS_STARTER, path);
  edit(jobsMap(doc, path), doc);
  const text = doc.toString({ lineWidth: 0 });
  let jobs: CronJobDefinition[];
  try {
    jobs = parseJobsText(text, path);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(`${JOBS_FILE}: change not saved, the file would be invalid:\n${error.message}`, {
      file: path,
      ...(error.keyPath ? { keyPath: error.keyPath } : {}),
    });
  }
  writeFileAtomic(path, text, 0o600);
  return jobs;
}

/**
 * Adds the job `name` (`create`) or changes an existing one, writing jobs.yaml.
 * @throws ConfigError for a bad name, a job that exists (create) or does not (update), or a result that
 * would be invalid (e.g. a bad cron, an add without prompt); the file is unchanged then.
 * @returns the job as now defined.
 */
export function writeJob(
  path: string,
  name: string,
  patch: JobPatch,
  options: { create: boolean },
): CronJobDefinition {
  const bad = checkJobName(name);
  if (bad) throw new ConfigError(`${JOBS_FILE}: ${bad}`, { file: path });
  const jobs = editJobsFile(path, (map, doc) => {
    const existing = map.get(name, true);
    if (options.create && existing !== undefined) {
      throw new ConfigError(`${JOBS_FILE}: jobs.${name}: a job with this name exists; update it instead`, {
        file: path,
      });
    }
    if (!options.create && !isMap(existing)) {
      throw new ConfigError(`${JOBS_FILE}: there is no job "${name}"; list the jobs to see their names`, {
        file: path,
      });
    }
    const entry = isMap(existing) ? existing : (doc.createNode({}) as YAMLMap);
    applyPatch(doc, entry, patch);
    if (!existing) map.set(name, entry);
  });
  return jobs.find((job) => job.name === name)!;
}

/**
 * Removes the job `name` from jobs.yaml (its run history stays in the outbox).
 * @throws ConfigError when there is no such job or the file is unusable; the file is unchanged then.
 */
export function deleteJob(path: string, name: string): void {
  editJobsFile(path, (map) => {
    if (!map.has(name)) {
      throw new ConfigError(`${JOBS_FILE}: there is no job "${name}"; list the jobs to see their names`, {
        file: path,
      });
    }
    map.delete(name);
  });
}
