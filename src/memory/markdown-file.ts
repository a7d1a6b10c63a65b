import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeFileAtomic } from '../util/atomic-write.js';

/** A file's text and content hash at one moment ('' and the hash of '' when it does not exist). */
export interface FileSnapshot {
  text: string;
  hash: string;
}

const hashOf = (text: string) => createHash('sha256').update(text).digest('hex');

/** Reads `path` as UTF-8; a missing file reads as ''. */
export function readSnapshot(path: string): FileSnapshot {
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return { text, hash: hashOf(text) };
}

/** Updates of one path in this process run one after another (two consolidations never interleave). */
const queues = new Map<string, Promise<unknown>>();

export interface UpdateOptions {
  /** Tries before giving up when the file keeps changing under us. Default 5. */
  attempts?: number;
  /** Test hook: runs after the new text is computed and before the file is checked and replaced. */
  beforeWrite?: (path: string) => void | Promise<void>;
  /** Called with the text each attempt read, inside this path's queue (file history records a disk edit). */
  onRead?: (text: string) => void;
  /**
   * Called synchronously right after the new text replaced the file, inside this path's queue, so nothing of
   * this process writes the file between the write and what this hook records.
   */
  onWrite?: (text: string) => void;
}

/**
 * Read-modify-write of a Markdown file that the owner may be editing by hand at the same time. `transform`
 * gets the current text and returns the new text (or undefined for no change). Right before replacing the
 * file, its hash is compared with what `transform` saw; when it changed (a hand edit), `transform` runs again
 * on the new text, so the edit is merged, never clobbered. The write is atomic (temp file, fsync, rename):
 * readers and a crash see the old or the new text, never a truncated one. `transform` must be pure.
 * @returns whether the file changed and its text afterwards.
 * @throws Error when the file changed on every attempt, or the file-system error.
 */
export function updateMarkdownFile(
  path: string,
  transform: (current: string) => string | undefined,
  options: UpdateOptions = {},
): Promise<{ changed: boolean; text: string }> {
  const previous = queues.get(path) ?? Promise.resolve();
  const next = previous.catch(() => {}).then(() => updateNow(path, transform, options));
  queues.set(path, next);
  void next
    .finally(() => {
      if (queues.get(path) === next) queues.delete(path);
    })
    .catch(() => {});
  return next;
}

async function updateNow(
  path: string,
  transform: (current: string) => string | undefined,
  options: UpdateOptions,
): Promise<{ changed: boolean; text: string }> {
  const attempts = options.attempts ?? 5;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const seen = readSnapshot(path);
    options.onRead?.(seen.text);
    const wanted = transform(seen.text);
    if (wanted === undefined || wanted === seen.text) return { changed: false, text: seen.text };
    await options.beforeWrite?.(path);
    if (readSnapshot(path).hash !== seen.hash) continue; // edited meanwhile: merge by transforming again
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileAtomic(path, wanted);
    options.onWrite?.(wanted);
    return { changed: true, text: wanted };
  }
  throw new Error(`${path} kept changing while Wren tried to update it (${attempts} tries); try again later`);
}
