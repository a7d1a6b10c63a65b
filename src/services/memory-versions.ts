/** The history side of the memory-file service: versions of the instruction files, their diffs, restores. */

import type { Stats } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  INSTRUCTION_FILES,
  isInstructionFile,
  observeInstructionFile,
  updateInstructionFile,
} from '../memory/file-history.js';
import { unifiedDiff } from '../memory/line-diff.js';
import { contentHash, type FileVersion, type FileVersionEntry } from '../store/file-version-repository.js';
import type { Stores } from '../store/open-stores.js';
import { invalid, notFound, refused, type ServiceFailure } from './service-failure.js';

/**
 * A write refused because the file is no longer the text the writer started from (`If-Match`): nothing was
 * written; the file's current text and ETag come back so the writer can show both.
 */
export interface MemoryConflict {
  ok: false;
  code: 'conflict';
  error: string;
  name: string;
  content: string;
  /** Hex SHA-256 of `content`. */
  etag: string;
  /** The newest recorded version (who made the text now on disk), when there is history. */
  changedBy?: { author: string; at: number; note: string };
}

/** A version with what it changed: a unified diff against the file's version before it ('' for the first). */
export interface VersionDetail {
  version: FileVersion;
  previousId?: number;
  diff: string;
}

/** How a write is made: who makes it and, with `ifMatch` (hex SHA-256; '' matches nothing), only over that text. */
export interface WriteOptions {
  ifMatch?: string;
  author?: string;
  note?: string;
}

/** Why `name` (a lstat or fstat of it) is not a file to read or replace; undefined when it is one. */
export function refusal(name: string, info: Stats): string | undefined {
  if (info.isSymbolicLink())
    return `${name} is a symbolic link; memory files are neither read nor written through links. Edit the file it points to, or replace the link with a regular file.`;
  if (info.isDirectory()) return `${name} is a folder, not a file; remove or rename it first.`;
  if (!info.isFile()) return `${name} is not a regular file; remove it first.`;
  return undefined;
}

/** Why a path's folders (`skills/<name>/`) may not be written through: a symlink or non-folder among them. */
export async function pathRefusal(workspace: string, path: string): Promise<string | undefined> {
  const parts = path.split('/');
  for (let depth = 1; depth <= parts.length; depth++) {
    const part = parts.slice(0, depth).join('/');
    const info = await lstat(join(workspace, part)).catch(() => undefined);
    if (!info) return undefined;
    if (depth < parts.length && !info.isDirectory())
      return `${part} is ${info.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}; files under it are not written.`;
    if (depth === parts.length) return refusal(path, info);
  }
  return undefined;
}

type Versions = NonNullable<Stores['fileVersions']>;

const noHistory = (): ServiceFailure =>
  notFound('No file history is kept here (this face was opened without the database).');

/**
 * Writes `content` to the instruction file `path` unless `ifMatch` says otherwise (see replace).
 * @returns the write, or the conflict with what is there now.
 */
export async function guardedWrite(
  versions: Versions | undefined,
  target: {
    workspace: string;
    path: string;
    content: string;
    author: string;
    note?: string;
    ifMatch?: string;
  },
) {
  let conflict: string | undefined;
  const written = await updateInstructionFile(
    {
      workspace: target.workspace,
      path: target.path,
      author: target.author,
      ...(target.note ? { note: target.note } : {}),
      ...(versions ? { versions } : {}),
    },
    (current) => {
      conflict =
        target.ifMatch !== undefined && contentHash(current) !== target.ifMatch ? current : undefined;
      return conflict === undefined ? target.content : undefined;
    },
  );
  if (conflict !== undefined) {
    const latest = versions?.latest(target.path);
    return {
      ok: false as const,
      code: 'conflict' as const,
      error: `${target.path} changed since you loaded it${latest ? ` (by ${latest.author})` : ''}; nothing was written.`,
      name: target.path,
      content: conflict,
      etag: contentHash(conflict),
      ...(latest ? { changedBy: { author: latest.author, at: latest.createdAt, note: latest.note } } : {}),
    } satisfies MemoryConflict;
  }
  return { ok: true as const, written };
}

export type { FileVersionEntry };

/** The history actions of the memory-file service (see MemoryFileService, which extends this). */
export interface MemoryVersionActions {
  /**
   * Versions newest first, of one instruction file (`file`) or all; `not_found` without history kept. With
   * `workspace`, the files are observed first (a disk edit since the last version is recorded, by `disk`).
   */
  versions(query: {
    file?: string;
    limit?: number;
    workspace?: string;
  }): { ok: true; versions: FileVersionEntry[] } | ServiceFailure;
  /** One version with its diff against the one before it (or against `against`, another version's id). */
  version(id: number, against?: number): { ok: true; detail: VersionDetail } | ServiceFailure;
  /**
   * Writes version `id`'s text back as the file's newest version, by `author` (default `revert`) with note
   * `revert to #id`; `ifMatch` as for replace. `not_found` for an unknown id.
   */
  restore(
    workspace: string,
    id: number,
    options?: WriteOptions,
  ): Promise<
    | { ok: true; path: string; etag: string; size: number; versionId?: number; changed: boolean }
    | MemoryConflict
    | ServiceFailure
  >;
}

/** `versions`, `version` and `restore` of the memory-file service over the home's file history. */
export function createVersionActions(versions: Versions | undefined): MemoryVersionActions {
  return {
    versions(query) {
      if (!versions) return noHistory();
      if (query.file !== undefined && !isInstructionFile(query.file))
        return notFound(
          `${query.file} has no history: versions are kept of MEMORY.md, USER.md, SOUL.md, AGENTS.md, HEARTBEAT.md and skills/<name>/SKILL.md.`,
        );
      // Listing is a read: what changed on disk since the last version is recorded first.
      if (query.workspace !== undefined)
        for (const path of query.file ? [query.file] : INSTRUCTION_FILES)
          observeInstructionFile({ workspace: query.workspace, path, versions });
      return {
        ok: true,
        versions: versions.list({
          ...(query.file ? { path: query.file } : {}),
          ...(query.limit ? { limit: query.limit } : {}),
        }),
      };
    },
    version(id, against) {
      if (!versions) return noHistory();
      const version = versions.get(id);
      if (!version) return notFound(`There is no version #${id}.`);
      const base = against !== undefined ? versions.get(against) : versions.previous(version.path, id);
      if (against !== undefined && !base) return notFound(`There is no version #${against}.`);
      if (base && base.path !== version.path)
        return invalid(`#${against} is a version of ${base.path}, not of ${version.path}.`, 'against');
      const diff = unifiedDiff(base?.content ?? '', version.content, {
        from: base ? `${base.path} #${base.id}` : '/dev/null',
        to: `${version.path} #${version.id}`,
      });
      return { ok: true, detail: { version, ...(base ? { previousId: base.id } : {}), diff } };
    },
    async restore(workspace, id, options = {}) {
      if (!versions) return noHistory();
      const version = versions.get(id);
      if (!version) return notFound(`There is no version #${id}.`);
      if (!isInstructionFile(version.path)) return refused(`${version.path} is not an instruction file.`);
      const problem = await pathRefusal(workspace, version.path);
      if (problem) return refused(problem);
      const before = versions.latest(version.path);
      const result = await guardedWrite(versions, {
        workspace,
        path: version.path,
        content: version.content,
        author: options.author ?? 'revert',
        note: options.note ?? `revert to #${id}`,
        ...(options.ifMatch !== undefined ? { ifMatch: options.ifMatch } : {}),
      });
      if (!result.ok) return result;
      const versionId = result.written.version?.id ?? versions.latest(version.path)?.id;
      return {
        ok: true,
        path: version.path,
        etag: version.sha256,
        size: Buffer.byteLength(version.content, 'utf8'),
        changed: result.written.changed || before?.sha256 !== version.sha256,
        ...(versionId ? { versionId } : {}),
      };
    },
  };
}
