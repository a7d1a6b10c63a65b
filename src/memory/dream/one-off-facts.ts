/** Which MEMORY.md facts are one-offs that are over: Dream may drop those (the model names them). Pure. */

const ISO_DATE = /\b(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])\b/g;

/**
 * Whether `line` is a past one-off: it names at least one date (`YYYY-MM-DD`) and every date it names is
 * before `today` (`YYYY-MM-DD`, the owner's date). A fact without such a date is never stale: "has a
 * dentist appointment on Tuesday" is kept, since what it means cannot be checked.
 */
export function isPastOneOff(line: string, today: string): boolean {
  const dates = [...line.matchAll(ISO_DATE)].map((match) => match[0]);
  return dates.length > 0 && dates.every((date) => date < today);
}
