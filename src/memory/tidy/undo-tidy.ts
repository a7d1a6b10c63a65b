import { join } from 'node:path';
import type { Stores } from '../../store/open-stores.js';
import { updateInstructionFile } from '../file-history.js';
import { formatStamp } from '../format-time.js';
import { appendHistoryEntry } from '../history-file.js';
import { readSnapshot, updateMarkdownFile } from '../markdown-file.js';
import { tidyUndoEntry, tidyUndoMarker } from './tidy-history.js';
import { TidyRecords, textHash } from './tidy-records.js';

/** An undo that cannot (or must not) be done; the message says why and what to do. */
export class UndoTidyError extends Error {
  override name = 'UndoTidyError';
}

export interface UndoTidyResult {
  /** When the undone tidy ran, `YYYY-MM-DD HH:MM` in the owner's zone. */
  tidiedAt: string;
  /** MEMORY.md had changed since the tidy and was replaced all the same (`--force`). */
  forced: boolean;
  /** What the tidy changed, as it was recorded. */
  merged: number;
  removed: number;
}

/**
 * `wren memory undo-tidy`: puts MEMORY.md back as it was before the last tidy and records that in HISTORY.md.
 * Refuses when MEMORY.md changed since the tidy (its hash is not the one the tidy wrote), since the undo
 * would throw that change away, unless `force`. An undone tidy is not redone on the same file: the next tidy
 * looks again only once MEMORY.md changes. Safe while `wren start` runs (the database serialises writers;
 * MEMORY.md is replaced atomically).
 * @throws UndoTidyError when there is nothing to undo, it was undone already, or MEMORY.md changed.
 */
export async function undoTidy(options: {
  stores: Pick<Stores, 'settings'> & Partial<Pick<Stores, 'fileVersions'>>;
  workspace: string;
  timezone?: string;
  force?: boolean;
  clock?: () => number;
}): Promise<UndoTidyResult> {
  const records = new TidyRecords(options.stores.settings);
  const record = records.last();
  const stamp = (ms: number) => formatStamp(ms, options.timezone);
  if (!record) {
    throw new UndoTidyError(
      'there is no memory tidy to undo: none has changed MEMORY.md yet (memory.dream in config.yaml schedules it)',
    );
  }
  const tidiedAt = stamp(record.at);
  if (record.undoneAt !== undefined)
    throw new UndoTidyError(`the memory tidy of ${tidiedAt} was undone already (${stamp(record.undoneAt)})`);
  const path = join(options.workspace, 'MEMORY.md');
  const current = readSnapshot(path);
  const untouched = (text: string) => text === record.before || textHash(text) === record.afterHash;
  const forced = !untouched(current.text);
  if (forced && !options.force) {
    throw new UndoTidyError(
      `MEMORY.md changed since the memory tidy of ${tidiedAt} (edited by hand or by Wren); undoing the tidy would throw that change away. Run \`wren memory undo-tidy --force\` to restore MEMORY.md as it was before the tidy anyway.`,
    );
  }
  const versions = options.stores.fileVersions;
  const written = await updateInstructionFile(
    {
      workspace: options.workspace,
      path: 'MEMORY.md',
      author: 'tidy-undo',
      note: `undo the memory tidy of ${tidiedAt}${forced ? ' (forced)' : ''}`,
      ...(versions ? { versions } : {}),
    },
    (text) => (options.force || untouched(text) ? record.before : undefined),
  );
  if (written.text !== record.before)
    throw new UndoTidyError('MEMORY.md changed while the undo ran; nothing was undone. Try again.');
  const at = (options.clock ?? Date.now)();
  const entry = tidyUndoEntry({ stamp: stamp(at), key: record.key, tidiedAt, forced });
  await updateMarkdownFile(join(options.workspace, 'HISTORY.md'), (text) =>
    appendHistoryEntry(text, entry, tidyUndoMarker(record.key)),
  );
  records.markUndone(at);
  records.setChecked(textHash(record.before));
  return {
    tidiedAt,
    forced,
    merged: record.changes.merged.length,
    removed: record.changes.removed.length,
  };
}
