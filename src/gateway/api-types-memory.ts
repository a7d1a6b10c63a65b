/**
 * The memory part of the gateway's API types (re-exported by api-types.ts): the instruction files, their
 * versions and HISTORY.md. Types only, like api-types.ts: no imports, nothing at run time.
 */

export interface MemoryFile {
  name: string;
  size: number;
  /** Null when the file does not exist yet. */
  updatedAt: number | null;
  /** Why the API will not read or write it (a symlink, a folder …). */
  problem?: string;
}

/** A HISTORY.md entry, newest first. */
export interface MemoryHistoryEntry {
  /** The owner's local stamp, `YYYY-MM-DD HH:MM` or `YYYY-MM-DD`. */
  at?: string;
  text: string;
  heading?: string;
  sessionId?: string;
}

/** A memory search hit: a HISTORY.md entry or a past message. */
export interface MemorySearchResult {
  source: 'history' | 'message' | string;
  heading?: string;
  date?: string;
  excerpt?: string;
  sessionId?: string;
  seq?: number;
  role?: string;
  createdAt?: number;
  /** Matches in [brackets], cut with `…`. */
  snippet?: string;
  when?: string;
  score?: number;
}

// --- Answers ---------------------------------------------------------------------------------------------

export type MemoryFileList = { files: MemoryFile[] };
/** `etag`: the quoted SHA-256 of `content`, also in the `ETag` header; send it back as `If-Match`. */
export type MemoryFileContent = { name: string; content: string; etag: string };
export type MemoryFileWritten = { name: string; size: number; etag: string; versionId?: number };
/** The 412 answer to a write whose `If-Match` is not the file's text any more: what is there now. */
export interface MemoryFileConflict {
  error: { code: 'conflict'; message: string };
  name: string;
  content: string;
  etag: string;
  /** Who wrote the text now there (the newest version), when known. */
  changedBy?: { author: string; at: number; note: string };
}
/** One version of an instruction file, without its content. */
export interface MemoryVersionEntry {
  id: number;
  path: string;
  sha256: string;
  /** consolidation, tidy, tidy-undo, web, cli, disk, revert, tool:write_file, tool:edit_file, /forget … */
  author: string;
  note: string;
  createdAt: number;
  bytes: number;
}
export type MemoryVersionList = { versions: MemoryVersionEntry[] };
/** A version with its content and a unified diff against `previousId` ('' diff when nothing changed). */
export interface MemoryVersionDetail {
  version: MemoryVersionEntry & { content: string };
  previousId?: number;
  diff: string;
}
export type MemoryVersionRestored = {
  path: string;
  etag: string;
  size: number;
  versionId?: number;
  changed: boolean;
};
export interface MemoryHistoryPage {
  entries: MemoryHistoryEntry[];
  /** Pass as `before` for the next, older page; absent on the last one. */
  next?: string;
}
export type MemorySearchResults = { results: MemorySearchResult[] };
