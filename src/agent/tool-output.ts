/**
 * Shortens text to at most `max` characters, keeping the head and the tail (where errors and summaries
 * usually are) and saying how much was left out.
 */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = (omitted: number) => `\n\n[… ${omitted} characters omitted …]\n\n`;
  const room = Math.max(0, max - marker(text.length).length);
  const head = Math.ceil(room * 0.7);
  const tail = room - head;
  const omitted = text.length - head - tail;
  return text.slice(0, head) + marker(omitted) + (tail > 0 ? text.slice(text.length - tail) : '');
}

/** A short human-readable rendering of a call, e.g. `read_file(path: "notes.md")`. */
export function describeCall(name: string, args: Record<string, unknown> | undefined): string {
  if (!args) return `${name}(…)`;
  const parts = Object.entries(args)
    .slice(0, 3)
    .map(([key, value]) => {
      const shown = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value ?? null);
      return `${key}: ${shown.length > 60 ? `${shown.slice(0, 57)}…` : shown}`;
    });
  return `${name}(${parts.join(', ')}${Object.keys(args).length > 3 ? ', …' : ''})`;
}
