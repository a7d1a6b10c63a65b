/** `YYYY-MM-DD HH:MM` of `ms` in the IANA `zone` (the system zone when omitted). */
export function formatStamp(ms: number, zone?: string): string {
  const parts = new Intl.DateTimeFormat('en-GB', {
    ...(zone ? { timeZone: zone } : {}),
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(ms));
  const get = (type: string) => parts.find((part) => part.type === type)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}`;
}
