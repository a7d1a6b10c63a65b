/**
 * The one way Wren writes an instruction file (MEMORY.md, USER.md, SOUL.md, AGENTS.md, HEARTBEAT.md,
 * `skills/<name>/SKILL.md`): the file is replaced atomically, then the new text is recorded as a version with
 * who made it. Reads observe: a text that differs from the newest version (the owner's own editor, a `git
 * pull`, a sync tool) is recorded as a version by author `disk`, so every change ends up in the history by
 * the next read at the latest.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { FileVersion } from '../store/file-version-repository.js';
import type { FileVersionStore } from '../store/ports.js';
import { type UpdateOptions, updateMarkdownFile } from './markdown-file.js';

/** The instruction files at the workspace's top. */
export const INSTRUCTION_FILES = ['MEMORY.md', 'USER.md', 'SOUL.md', 'AGENTS.md', 'HEARTBEAT.md'] as const;

const SKILL_FILE = /^skills\/[A-Za-z0-9][A-Za-z0-9._-]{0,79}\/SKILL\.md$/;

/** Whether `path` (relative to the workspace, `/`-separated) is a file whose versions are kept. */
export function isInstructionFile(path: string): boolean {
  return (
    (INSTRUCTION_FILES as readonly string[]).includes(path) ||
    (SKILL_FILE.test(path) && !path.includes('/../'))
  );
}

/** `absolute` as an instruction file path relative to `workspace`, or undefined when it is none. */
export function instructionPath(workspace: string, absolute: string): string | undefined {
  const inside = relative(workspace, absolute);
  if (!inside || inside.startsWith('..') || isAbsolute(inside)) return undefined;
  const path = inside.split(sep).join('/');
  return isInstructionFile(path) ? path : undefined;
}

/** The author of versions found on disk (written by something other than Wren). */
export const DISK_AUTHOR = 'disk';

/**
 * Records `content` as a `disk` version of `path` when it differs from the newest version; the first time a
 * file is seen (no history yet) it becomes the baseline. A file that does not exist and has no history
 * records nothing. Idempotent: an unchanged file writes nothing.
 */
export function observeInstructionText(
  versions: FileVersionStore,
  path: string,
  content: string,
  exists = true,
): FileVersion | undefined {
  const latest = versions.latest(path);
  if (!latest && !exists) return undefined;
  if (latest && latest.content === content) return latest;
  return versions.record({
    path,
    content,
    author: DISK_AUTHOR,
    note: latest ? 'changed on disk' : 'first seen',
  });
}

/** Per store, the stat stamp of each file as last observed: an unchanged stamp is not read nor hashed again. */
const stamps = new WeakMap<FileVersionStore, Map<string, string>>();

/**
 * Observes `workspace/path` cheaply: when its mtime, ctime, size and inode equal the last observation's,
 * nothing is read; otherwise its text is compared with the newest version (see observeInstructionText).
 * @returns the file's text ('' when missing or unreadable).
 */
export function readInstructionFile(options: {
  workspace: string;
  path: string;
  versions?: FileVersionStore;
}): string {
  const file = join(options.workspace, options.path);
  let stamp: string;
  try {
    const info = statSync(file);
    stamp = `${info.mtimeMs}:${info.ctimeMs}:${info.size}:${info.ino}`;
  } catch {
    return '';
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return '';
  }
  try {
    if (options.versions) observeStamped(options.versions, options.path, stamp, text);
  } catch {
    // best effort: a database failure costs this observation, never the reader its file
  }
  return text;
}

/** Records `text` (read at `stamp`) unless that stamp was observed already. */
function observeStamped(versions: FileVersionStore, path: string, stamp: string, text: string): void {
  let seen = stamps.get(versions);
  if (!seen) {
    seen = new Map();
    stamps.set(versions, seen);
  }
  if (seen.get(path) === stamp) return;
  observeInstructionText(versions, path, text);
  seen.set(path, stamp);
}

/**
 * A prompt reader's "has it changed on disk?": stats the file and, only when its stamp changed since the last
 * observation, reads it and records it as a `disk` version if it differs from the newest one.
 */
export function observeInstructionFile(options: {
  workspace: string;
  path: string;
  versions: FileVersionStore;
}): void {
  const file = join(options.workspace, options.path);
  try {
    const info = statSync(file);
    const stamp = `${info.mtimeMs}:${info.ctimeMs}:${info.size}:${info.ino}`;
    if (stamps.get(options.versions)?.get(options.path) === stamp) return;
    observeStamped(options.versions, options.path, stamp, readFileSync(file, 'utf8'));
  } catch {
    // Missing or unreadable: nothing to record (a deletion is recorded by the next write).
  }
}

/**
 * For the file tools: records what `write_file`/`edit_file` wrote as a version by `tool:<name>` when the file
 * is an instruction file inside the workspace (anything else, and the extra roots, record nothing).
 */
export function recordToolWrite(
  versions: FileVersionStore,
): (file: { workspace: string; path: string; content: string; tool: string }) => void {
  return (file) => {
    const path = instructionPath(file.workspace, file.path);
    if (path) versions.record({ path, content: file.content, author: `tool:${file.tool}` });
  };
}

/** Records a file Wren just installed (a built-in skill) as its first version, by `built-in`. */
export function recordInstalled(versions: FileVersionStore, workspace: string, path: string): void {
  try {
    versions.record({ path, content: readFileSync(join(workspace, path), 'utf8'), author: 'built-in' });
  } catch {
    // best effort: the next read records it as first seen
  }
}

export interface InstructionWrite {
  workspace: string;
  /** Relative to the workspace: `MEMORY.md`, `skills/<name>/SKILL.md`. */
  path: string;
  /** Who writes: consolidation, tidy, tidy-undo, web, cli, revert, tool:write_file… */
  author: string;
  note?: string;
  /** Without it the file is written and nothing is recorded (tests and tools without a database). */
  versions?: FileVersionStore;
}

/**
 * Read-modify-write of an instruction file through updateMarkdownFile (serialised per path in this process,
 * a concurrent hand edit merged by transforming again, the write atomic). Inside that path's queue, the
 * text read is observed first (a disk edit becomes its own `disk` version, never attributed to `author`),
 * and the text written is recorded as `author`'s version right after the rename.
 * @throws what updateMarkdownFile throws; the file is then unchanged.
 */
export async function updateInstructionFile(
  write: InstructionWrite,
  transform: (current: string) => string | undefined,
  options: Omit<UpdateOptions, 'onRead' | 'onWrite'> = {},
): Promise<{ changed: boolean; text: string; version?: FileVersion }> {
  const { versions } = write;
  const file = join(write.workspace, write.path);
  let version: FileVersion | undefined;
  const result = await updateMarkdownFile(file, transform, {
    ...options,
    ...(versions
      ? {
          onRead: (text: string) => {
            observeInstructionText(versions, write.path, text, text !== '' || existsSync(file));
          },
          onWrite: (text: string) => {
            version = versions.record({
              path: write.path,
              content: text,
              author: write.author,
              ...(write.note ? { note: write.note } : {}),
            });
          },
        }
      : {}),
  });
  return { ...result, ...(version ? { version } : {}) };
}

/** Replaces an instruction file with `content` and records it (see updateInstructionFile). */
export function writeInstructionFile(
  write: InstructionWrite & { content: string },
): Promise<{ changed: boolean; text: string; version?: FileVersion }> {
  return updateInstructionFile(write, () => write.content);
}
