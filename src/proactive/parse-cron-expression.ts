import { validateCron } from '../util/schedule.js';

/** A repeating schedule read from text: a 5-field cron (minute first) and how to say it. */
export type RecurringResult =
  | { ok: true; cron: string; description: string; note?: string }
  | { ok: false; error: string };

const FIELDS_HELP =
  'A cron expression has 5 fields: minute hour day-of-month month day-of-week, e.g. "0 9 * * 1-5" (weekdays at 09:00).';

/** The croner macros, spelled out so every stored cron is 5 fields. */
const MACROS: Record<string, { cron: string; description: string }> = {
  '@yearly': { cron: '0 0 1 1 *', description: 'every year on 1 Jan at 00:00' },
  '@annually': { cron: '0 0 1 1 *', description: 'every year on 1 Jan at 00:00' },
  '@monthly': { cron: '0 0 1 * *', description: 'every month on the 1st at 00:00' },
  '@weekly': { cron: '0 0 * * 0', description: 'every Sunday at 00:00' },
  '@daily': { cron: '0 0 * * *', description: 'every day at 00:00' },
  '@midnight': { cron: '0 0 * * *', description: 'every day at 00:00' },
  '@hourly': { cron: '0 * * * *', description: 'every hour on the hour' },
};

const NUMERIC_FIELD = /^[\d*/,-]+$/;
const CRON_FIELD = /^[\w*/,#?-]+$/;

/**
 * A raw cron expression ("0 9 * * 1-5") or macro ("@daily"), checked with croner in `timezone`. Undefined
 * when `text` does not look like one (it starts with two numeric fields, or with "@"); an error when it does
 * but is invalid, or has seconds/years fields (the scheduler ticks every 30 s, so minutes are the finest unit).
 */
export function parseCronExpression(text: string, timezone: string): RecurringResult | undefined {
  const source = text.trim();
  if (source.startsWith('@')) {
    const macro = MACROS[source.toLowerCase()];
    if (!macro)
      return {
        ok: false,
        error: `Unknown cron macro "${source}"; use ${Object.keys(MACROS)
          .map((name) => `"${name}"`)
          .join(', ')}.`,
      };
    return checkedCron(macro.cron, `${macro.description} (${timezone})`, timezone);
  }
  const fields = source.split(/\s+/);
  const looksLikeCron =
    fields.length >= 4 &&
    fields.length <= 7 &&
    NUMERIC_FIELD.test(fields[0] ?? '') &&
    NUMERIC_FIELD.test(fields[1] ?? '') &&
    fields.every((field) => CRON_FIELD.test(field));
  if (!looksLikeCron) return undefined;
  const expression = fields.join(' ');
  if (fields.length !== 5) {
    return { ok: false, error: `"${expression}" has ${fields.length} fields, not 5. ${FIELDS_HELP}` };
  }
  return checkedCron(expression, `cron "${expression}" (${timezone})`, timezone);
}

/** `cron` as a result after croner accepted it in `timezone`, or the reason it did not. */
export function checkedCron(
  cron: string,
  description: string,
  timezone: string,
  note?: string,
): RecurringResult {
  const problem = validateCron(cron, timezone);
  if (problem)
    return { ok: false, error: `Not a valid cron expression "${cron}": ${problem}. ${FIELDS_HELP}` };
  return note ? { ok: true, cron, description, note } : { ok: true, cron, description };
}
