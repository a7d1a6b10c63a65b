/**
 * Names found valid. Building an `Intl.DateTimeFormat` to check a name costs ~0.2 ms and native memory, and
 * calendar expansion asks per occurrence; the IANA names a runtime knows are a few hundred, so the set stays
 * small (invalid names are not kept, so hostile input cannot grow it).
 */
const known = new Set<string>();

/** Whether `name` is an IANA time zone this runtime knows (`Europe/Berlin`, `UTC`). */
export function isTimeZone(name: string): boolean {
  if (known.has(name)) return true;
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    known.add(name);
    return true;
  } catch {
    return false;
  }
}
