/** HISTORY.md: timestamped, append-only, grep-able entries, one per consolidation. Helpers are pure. */

export const HISTORY_HEADER = `# History

What happened in past conversations, newest last. Written by Wren when it consolidates a session; grep it.
`;

/** The line that identifies the entry of one consolidation (session and message range). */
export function historyMarker(sessionId: string, fromSeq: number, throughSeq: number): string {
  return `<!-- wren:consolidation session=${sessionId} seq=${fromSeq}-${throughSeq} -->`;
}

/** One entry: a `## <stamp> · session <short id>` heading, the marker, then the text. */
export function formatHistoryEntry(options: {
  stamp: string;
  sessionId: string;
  fromSeq: number;
  throughSeq: number;
  text: string;
}): string {
  const heading = `## ${options.stamp} · session ${options.sessionId.slice(0, 8)}`;
  const marker = historyMarker(options.sessionId, options.fromSeq, options.throughSeq);
  return `${heading}\n${marker}\n${options.text.trim()}\n`;
}

/**
 * `current` with `entry` appended, or undefined when an entry with `marker` is already there (so a replay
 * after a crash appends nothing twice). A missing or empty file starts with the header.
 */
export function appendHistoryEntry(current: string, entry: string, marker: string): string | undefined {
  if (current.includes(marker)) return undefined;
  const base = current.trim() === '' ? HISTORY_HEADER : current.endsWith('\n') ? current : `${current}\n`;
  return `${base}\n${entry}`;
}

export interface HistoryEntry {
  heading: string;
  body: string;
  /** `YYYY-MM-DD` from the heading, when it starts with one. */
  date?: string;
  /** The full session id from the marker, when present. */
  sessionId?: string;
}

/** The `## ` entries of HISTORY.md (hand-written ones included), in file order. */
export function parseHistoryEntries(text: string): HistoryEntry[] {
  const entries: HistoryEntry[] = [];
  for (const chunk of text.split(/^(?=## )/m)) {
    if (!chunk.startsWith('## ')) continue;
    const newline = chunk.indexOf('\n');
    const heading = (newline < 0 ? chunk : chunk.slice(0, newline)).slice(3).trim();
    const rest = newline < 0 ? '' : chunk.slice(newline + 1);
    const marker = /<!-- wren:consolidation session=(\S+) seq=\d+-\d+ -->\n?/.exec(rest);
    const body = (marker ? rest.replace(marker[0], '') : rest).trim();
    const date = /^(\d{4}-\d{2}-\d{2})/.exec(heading)?.[1];
    entries.push({
      heading,
      body,
      ...(date ? { date } : {}),
      ...(marker ? { sessionId: marker[1]! } : {}),
    });
  }
  return entries;
}
