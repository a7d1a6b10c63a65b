import { createHash } from 'node:crypto';
import type { SettingsStore } from '../../store/ports.js';
import type { DreamMove } from '../dream/dream-moves.js';
import type { TidyChanges } from './check-tidy.js';

/** The last tidy that changed MEMORY.md: enough to finish it after a crash and to undo it. */
export interface TidyRecord {
  /** The outbox key of the run (`tidy:<slot>`). */
  key: string;
  /** When the tidy was decided (UTC ms). */
  at: number;
  /** MEMORY.md before and after, with their SHA-256. */
  before: string;
  beforeHash: string;
  after: string;
  afterHash: string;
  changes: TidyChanges;
  /** Dream's proposed moves (added to the proposals when the record is applied; a replay adds none twice). */
  moves?: DreamMove[];
  /** What the pass refused or ignored, for the feed. */
  notes?: string[];
  /** Model calls and tokens the pass used, and its budget. */
  usage?: { calls: number; tokens: number; budget: number; deferred: number };
  /** Set by `wren memory undo-tidy`. */
  undoneAt?: number;
}

const LAST = 'memory.tidy.last';
const CHECKED = 'memory.tidy.checked';
const SETTLED = 'memory.tidy.settled';
/** Chunk hashes kept at most (the oldest are forgotten: the worst case is one call too many). */
const SETTLED_MAX = 256;

/** SHA-256 of a text, as readSnapshot computes it. */
export const textHash = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * The tidy's state in `wren.db` (the settings table, so it is private like the rest of the database): the
 * last tidy with MEMORY.md as it was before it, and the hash of the MEMORY.md a tidy last looked at (a file
 * that has not changed since is not sent to the model again).
 */
export class TidyRecords {
  /** @param settings the home's settings store (`stores.settings`). */
  constructor(private readonly settings: Pick<SettingsStore, 'get' | 'set' | 'delete'>) {}

  last(): TidyRecord | undefined {
    const raw = this.settings.get(LAST);
    return raw === undefined ? undefined : (JSON.parse(raw) as TidyRecord);
  }

  /** Saved before MEMORY.md is written, so a crash in between finishes the same tidy at the next start. */
  saveLast(record: TidyRecord): void {
    this.settings.set(LAST, JSON.stringify(record));
  }

  /** Forgets the last tidy when it is `key` (a tidy that could not be written: there is nothing to undo). */
  forget(key: string): void {
    if (this.last()?.key === key) this.settings.delete(LAST);
  }

  markUndone(at: number): void {
    const record = this.last();
    if (record) this.saveLast({ ...record, undoneAt: at });
  }

  /** The hash of the MEMORY.md the last tidy looked at (and left as it is, or wrote). */
  checked(): string | undefined {
    return this.settings.get(CHECKED);
  }

  setChecked(hash: string): void {
    this.settings.set(CHECKED, hash);
  }

  /** Hashes of MEMORY.md chunks Dream looked at and would get the same answer for. */
  settled(): Set<string> {
    const raw = this.settings.get(SETTLED);
    return new Set(raw === undefined ? [] : (JSON.parse(raw) as string[]));
  }

  addSettled(hashes: readonly string[]): void {
    if (hashes.length === 0) return;
    const all = [...this.settled(), ...hashes];
    this.settings.set(SETTLED, JSON.stringify([...new Set(all)].slice(-SETTLED_MAX)));
  }
}
