/**
 * Fixed hours for the vague parts of the day, used whenever no clock time is given ("tomorrow evening",
 * "every morning"): a reminder needs one instant, and these are the hours people most often mean.
 */
export const PART_OF_DAY_HOURS: Readonly<Record<string, number>> = {
  morning: 9,
  noon: 12,
  midday: 12,
  afternoon: 15,
  evening: 18,
  tonight: 20,
  night: 20,
  midnight: 0,
};

/** The hour used when a date has no time at all ("tomorrow", "2026-12-24", "every monday"). */
export const DEFAULT_HOUR = 9;

/** Source of a clock-time phrase, for embedding in larger patterns; `parseClockTime` reads what it matches. */
export const CLOCK_TIME_PATTERN =
  '\\d{1,2}(?:[:.h]\\d{2})?\\s*(?:[ap]\\.?m\\.?)?|noon|midday|midnight|(?:in\\s+the\\s+)?(?:morning|afternoon|evening)|(?:at\\s+)?night';

const CLOCK = /^(\d{1,2})(?:[:.h](\d{2}))?\s*(?:([ap])\.?m\.?)?$/;

/**
 * A time of day: "8" and "18:30" on the 24-hour clock, "9am", "6:30 pm", "12am" (= 00:00), "noon",
 * "midnight", or a part of the day ("morning", "in the evening") at its fixed hour (PART_OF_DAY_HOURS).
 * An optional leading "at" is ignored. Undefined when `text` is none of these or out of range ("25:00").
 */
export function parseClockTime(text: string): { hour: number; minute: number } | undefined {
  const source = text
    .trim()
    .toLowerCase()
    .replace(/^at\s+/, '')
    .replace(/^in\s+the\s+/, '');
  const part = PART_OF_DAY_HOURS[source];
  if (part !== undefined) return { hour: part, minute: 0 };
  const match = CLOCK.exec(source);
  if (!match) return undefined;
  let hour = Number(match[1]);
  const minute = match[2] === undefined ? 0 : Number(match[2]);
  const meridiem = match[3];
  if (minute > 59) return undefined;
  if (meridiem) {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (meridiem === 'p' ? 12 : 0);
  } else if (hour > 23) {
    return undefined;
  }
  return { hour, minute };
}
