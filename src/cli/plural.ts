/** Irregular plurals of the nouns the CLI counts; the rest add "s". */
const IRREGULAR: Record<string, string> = {
  delivery: 'deliveries',
  entry: 'entries',
  'owner id': 'owner ids',
};

/**
 * "1 reminder", "2 reminders", "0 deliveries": a count with its noun, singular only for exactly one. Every
 * count the CLI prints goes through here (no "1 deliveries", no "reminder(s)").
 */
export function plural(count: number, noun: string, many = IRREGULAR[noun] ?? `${noun}s`): string {
  return `${count} ${count === 1 ? noun : many}`;
}
