import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';

const LEVELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};
const SKIP = new Set(['level', 'time', 'msg', 'pid', 'hostname']);

/** One JSON line of the gateway log as `time LEVEL message key=value …`; any other line as it is. */
export function formatLogLine(line: string): string {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return line;
  }
  if (!record || typeof record !== 'object' || Array.isArray(record)) return line;
  const fields = record as Record<string, unknown>;
  const time = typeof fields['time'] === 'number' ? new Date(fields['time']).toISOString() : '-';
  const level = LEVELS[fields['level'] as number] ?? String(fields['level'] ?? '-');
  const rest = Object.entries(fields)
    .filter(([key]) => !SKIP.has(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return [time, level.padEnd(5), String(fields['msg'] ?? ''), ...rest].join(' ').trimEnd();
}

/** The complete lines of `file` from byte `from`, and where the next read starts (after the last newline). */
export function readLines(file: string, from: number): { lines: string[]; next: number } {
  if (!existsSync(file)) return { lines: [], next: 0 };
  const size = statSync(file).size;
  const start = size < from ? 0 : from; // smaller than before: rotated, read the new file from its start
  if (size === start) return { lines: [], next: start };
  const buffer = Buffer.alloc(size - start);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, buffer, 0, buffer.length, start);
  } finally {
    closeSync(fd);
  }
  const text = buffer.toString('utf8');
  const end = text.lastIndexOf('\n');
  if (end < 0) return { lines: [], next: start };
  return { lines: text.slice(0, end).split('\n'), next: start + Buffer.byteLength(text.slice(0, end + 1)) };
}

/**
 * Prints the last `count` lines of the log readably; with `follow`, keeps printing new lines (across a
 * rotation) until `signal` aborts.
 */
export async function showLog(
  file: string,
  options: {
    count: number;
    follow: boolean;
    write: (text: string) => void;
    signal?: AbortSignal;
    pollMs?: number;
  },
): Promise<void> {
  const first = readLines(file, 0);
  for (const line of first.lines.slice(-options.count)) options.write(`${formatLogLine(line)}\n`);
  let next = first.next;
  while (options.follow && !options.signal?.aborted) {
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 500));
    const more = readLines(file, next);
    for (const line of more.lines) options.write(`${formatLogLine(line)}\n`);
    next = more.next;
  }
}
