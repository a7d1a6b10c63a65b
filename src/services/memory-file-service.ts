import { constants } from 'node:fs';
import { type FileHandle, lstat, open } from 'node:fs/promises';
import { join } from 'node:path';
import { observeInstructionText } from '../memory/file-history.js';
import { parseHistoryEntries } from '../memory/history-file.js';
import type { UndoTidyResult } from '../memory/tidy/undo-tidy.js';
import { contentHash } from '../store/file-version-repository.js';
import type { Stores } from '../store/open-stores.js';
import { O_NOFOLLOW } from '../tools/fs/open-folder.js';
import {
  createVersionActions,
  guardedWrite,
  type MemoryConflict,
  type MemoryVersionActions,
  pathRefusal,
  refusal,
  type VersionDetail,
  type WriteOptions,
} from './memory-versions.js';
import type { ServiceContext } from './service-context.js';
import { notFound, refused, type ServiceFailure, tooLarge } from './service-failure.js';

export type { MemoryConflict, UndoTidyResult, VersionDetail, WriteOptions };

/** The workspace files the owner may read and replace; HISTORY.md is read a page at a time. */
export const MEMORY_FILES = ['SOUL.md', 'USER.md', 'AGENTS.md', 'MEMORY.md'] as const;
export type MemoryFileName = (typeof MEMORY_FILES)[number];

/**
 * The largest memory file `replace` accepts, in UTF-8 bytes. The memory code has no hard cap of its own
 * (`memory.memory_file_chars` is only what consolidation keeps MEMORY.md under), so this is the owner's.
 */
export const MAX_MEMORY_FILE_BYTES = 256 * 1024;

/** HISTORY.md entries per page: the default and the most one page may hold. */
export const HISTORY_PAGE = { default: 20, max: 200 } as const;

/** O_NONBLOCK: a FIFO planted at a memory file's place must not hang the read (refused after fstat). */
const READ_FLAGS = constants.O_RDONLY | O_NOFOLLOW | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

export interface MemoryFileInfo {
  name: MemoryFileName;
  /** 0 when missing or refused. */
  size: number;
  /** Unix ms of the last change; null when missing or refused. */
  updatedAt: number | null;
  /** Why the file is not read or written (a symlink, a folder), when it is not. */
  problem?: string;
}

/** A HISTORY.md entry as the owner sees it (newest first). */
export interface HistoryItem {
  /** The stamp that starts the heading (`YYYY-MM-DD HH:MM` or `YYYY-MM-DD`, the owner's local time). */
  at?: string;
  /** The entry's text (the consolidation marker left out). */
  text: string;
  /** The whole heading, e.g. `2026-12-01 09:30 · session 2f0c1a2b` (hand-written ones as written). */
  heading: string;
  /** The full session id, for entries Wren wrote. */
  sessionId?: string;
}

/**
 * The owner's actions on the memory files of a workspace. Every read and write refuses a symlink, a folder,
 * a FIFO or a file with several hard links at a memory file's place (`refused`): the other end may be a file
 * outside the workspace. A name other than the four is `not_found`.
 */
export interface MemoryFileService extends MemoryVersionActions {
  list(workspace: string): Promise<MemoryFileInfo[]>;
  /** The file's text ('' when missing). */
  read(
    workspace: string,
    name: string,
  ): Promise<{ ok: true; content: string; etag: string } | ServiceFailure>;
  /**
   * Replaces the file the way the memory code writes it: serialised with consolidations of the file in this
   * process, a temp file fsynced and renamed over the name (0600) — a symlink planted there meanwhile is
   * replaced, never written through. At most {@link MAX_MEMORY_FILE_BYTES} (`too_large`). With
   * `ifMatch`, refused as a {@link MemoryConflict} when the file's text is not that hash any more (checked
   * inside the file's queue, so a consolidation landing meanwhile is never overwritten). Recorded as a
   * version by `author` (default `web`).
   */
  replace(
    workspace: string,
    name: string,
    content: string,
    options?: WriteOptions,
  ): Promise<
    | { ok: true; name: MemoryFileName; size: number; etag: string; versionId?: number }
    | MemoryConflict
    | ServiceFailure
  >;
  /**
   * A page of HISTORY.md, newest first. `before` is the cursor of an earlier page (its `next`): entries are
   * only ever appended, so a cursor stays valid as the file grows.
   */
  history(
    workspace: string,
    page: { limit?: number; before?: number },
  ): Promise<{ ok: true; entries: HistoryItem[]; next?: string } | ServiceFailure>;
  /**
   * Puts MEMORY.md of `workspace` back as it was before the last memory tidy (see undoTidy; `force` even when
   * it changed since). The tidy's module loads on first use.
   * @throws UndoTidyError saying why it cannot.
   */
  undoTidy(options: { workspace: string; force?: boolean }): Promise<UndoTidyResult>;
}

export const isMemoryFileName = (name: string): name is MemoryFileName =>
  (MEMORY_FILES as readonly string[]).includes(name);

/** The refusal of a name other than the four. */
export const unknownMemoryFile = (): ServiceFailure =>
  notFound(`Only ${MEMORY_FILES.join(', ')} can be read or written (HISTORY.md a page at a time).`);

type ReadResult = { kind: 'file'; text: string } | { kind: 'missing' } | { kind: 'refused'; message: string };

/** Reads `workspace/name` without following a symlink at its place and without blocking on a FIFO. */
async function readMemoryFile(workspace: string, name: string): Promise<ReadResult> {
  let handle: FileHandle;
  try {
    handle = await open(join(workspace, name), READ_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    if (code === 'ELOOP') {
      const info = await lstat(join(workspace, name));
      return { kind: 'refused', message: refusal(name, info) ?? `${name} cannot be opened.` };
    }
    throw error;
  }
  try {
    const info = await handle.stat();
    const refused = refusal(name, info);
    if (refused) return { kind: 'refused', message: refused };
    if (info.nlink > 1)
      return {
        kind: 'refused',
        message: `${name} has ${info.nlink} hard links; only files with a single link are read (the other may be a file outside the workspace).`,
      };
    return { kind: 'file', text: await handle.readFile('utf8') };
  } finally {
    await handle.close();
  }
}

async function list(workspace: string): Promise<MemoryFileInfo[]> {
  return Promise.all(
    MEMORY_FILES.map(async (name) => {
      const info = await lstat(join(workspace, name)).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
        throw error;
      });
      if (!info) return { name, size: 0, updatedAt: null };
      const problem = refusal(name, info);
      return problem
        ? { name, size: 0, updatedAt: null, problem }
        : { name, size: info.size, updatedAt: Math.round(info.mtimeMs) };
    }),
  );
}

async function history(workspace: string, page: { limit?: number; before?: number }) {
  const read = await readMemoryFile(workspace, 'HISTORY.md');
  if (read.kind === 'refused') return refused(read.message);
  const all = read.kind === 'file' ? parseHistoryEntries(read.text) : [];
  // The cursor is the file-order index of the oldest entry already shown: older ones come before it.
  const end = Math.min(page.before ?? all.length, all.length);
  const limit = Math.min(page.limit ?? HISTORY_PAGE.default, HISTORY_PAGE.max);
  const start = Math.max(0, end - limit);
  const entries: HistoryItem[] = all
    .slice(start, end)
    .reverse()
    .map((entry) => {
      const at = /^\d{4}-\d{2}-\d{2}(?: \d{2}:\d{2})?/.exec(entry.heading)?.[0];
      return {
        ...(at ? { at } : {}),
        text: entry.body,
        heading: entry.heading,
        ...(entry.sessionId ? { sessionId: entry.sessionId } : {}),
      };
    });
  return { ok: true as const, entries, ...(start > 0 ? { next: String(start) } : {}) };
}

export function createMemoryFileService(
  stores: Pick<Stores, 'settings'> & Partial<Pick<Stores, 'fileVersions'>>,
  context: ServiceContext,
): MemoryFileService {
  const versions = stores.fileVersions;
  return {
    list,
    history,
    async read(workspace, name) {
      if (!isMemoryFileName(name)) return unknownMemoryFile();
      const read = await readMemoryFile(workspace, name);
      if (read.kind === 'refused') return refused(read.message);
      const content = read.kind === 'file' ? read.text : '';
      // A read observes: an edit made on disk since the last version becomes one, by `disk`.
      if (versions) observeInstructionText(versions, name, content, read.kind === 'file');
      return { ok: true, content, etag: contentHash(content) };
    },
    async replace(workspace, name, content, options = {}) {
      if (!isMemoryFileName(name)) return unknownMemoryFile();
      const size = Buffer.byteLength(content, 'utf8');
      if (size > MAX_MEMORY_FILE_BYTES)
        return tooLarge(
          `${name} would be ${size} bytes; at most ${MAX_MEMORY_FILE_BYTES} (256 KiB) are written.`,
        );
      const problem = await pathRefusal(workspace, name);
      if (problem) return refused(problem);
      const result = await guardedWrite(versions, {
        workspace,
        path: name,
        content,
        author: options.author ?? 'web',
        ...(options.note ? { note: options.note } : {}),
        ...(options.ifMatch !== undefined ? { ifMatch: options.ifMatch } : {}),
      });
      if (!result.ok) return result;
      const versionId = result.written.version?.id ?? versions?.latest(name)?.id;
      return { ok: true, name, size, etag: contentHash(content), ...(versionId ? { versionId } : {}) };
    },
    ...createVersionActions(versions),
    async undoTidy(options) {
      const { undoTidy } = await import('../memory/tidy/undo-tidy.js');
      return undoTidy({
        stores: versions ? { settings: stores.settings, fileVersions: versions } : stores,
        workspace: options.workspace,
        timezone: context.timezone(),
        ...(options.force !== undefined ? { force: options.force } : {}),
        clock: context.now,
      });
    },
  };
}
