import type { FileHandle } from 'node:fs/promises';
import { z } from 'zod';
import { type Tool, ToolError } from '../../agent/tool.js';
import { toolSchema } from '../../agent/tool-schema.js';
import { openFileForRead } from '../fs/open-file-for-read.js';
import { PathError } from '../fs/path-error.js';
import {
  assessPath,
  insideWorkspace,
  type ResolvedPath,
  resolveInRoots,
  shownPath,
} from '../fs/workspace-path.js';
import { isPdf, PDF_CAP_BYTES, pdfText } from './pdf-text.js';

/** The most characters one read returns; longer files are paged with offset/limit. */
export const READ_CAP_CHARS = 128_000;
/** Bytes read from disk at most per call: paging past this is by line offset within it. */
const READ_CAP_BYTES = 16 * 1024 * 1024;

const parameters = z
  .object({
    path: z.string(),
    offset: z.number().int().min(1).optional().describe('First line'),
    limit: z.number().int().min(1).optional().describe('Lines'),
    char_offset: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('First character, in a line longer than the cap'),
  })
  .strict();

function looksBinary(buffer: Buffer): boolean {
  const sample = buffer.subarray(0, 8192);
  return sample.includes(0);
}

/** Opens the file for reading (see openFileForRead), with read_file's wording for a missing file or a folder. */
async function openTarget(resolved: ResolvedPath, requested: string, show: (path: string) => string) {
  return openFileForRead({ root: resolved.root, path: resolved.path, show }).catch((error) => {
    if (error instanceof PathError && error.problem === 'missing')
      throw new ToolError(`No file at "${requested}".`);
    if (error instanceof PathError && error.problem === 'folder')
      throw new ToolError(`"${requested}" is a folder; use list_dir.`);
    throw error;
  });
}

/** The file's text (a PDF's text), or a one-line description of a binary file. */
async function loadText(
  handle: FileHandle,
  size: number,
  shown: string,
  signal: AbortSignal,
): Promise<{ text: string; truncatedBytes: boolean } | { binary: string }> {
  let buffer = await readHead(handle, Math.min(size, READ_CAP_BYTES));
  signal.throwIfAborted();
  if (isPdf(buffer)) {
    if (size > PDF_CAP_BYTES)
      throw new ToolError(`${shown} is a PDF of ${size} bytes; PDFs up to 50 MB are read as text.`);
    if (size > READ_CAP_BYTES) buffer = await readHead(handle, size);
    return { text: (await pdfText(buffer, signal)).text, truncatedBytes: false };
  }
  if (looksBinary(buffer))
    return { binary: `${shown} is a binary file (${size} bytes); it cannot be shown as text.` };
  return { text: buffer.toString('utf8'), truncatedBytes: size > READ_CAP_BYTES };
}

/**
 * `read_file`: a text file (or a PDF's text) from the workspace or an extra root, paged by lines, capped at
 * READ_CAP_CHARS. Files outside the workspace mark the session as having read private data. The file is
 * opened without following symlinks and refused when it has more than one hard link (see openFileForRead).
 * @param capChars the most characters one read returns (default READ_CAP_CHARS); the app keeps it within
 * one tool result so the loop never cuts a page in the middle and paging stays exact.
 */
export function createReadFileTool(
  roots: () => string[],
  capChars: () => number = () => READ_CAP_CHARS,
): Tool {
  return {
    name: 'read_file',
    description: 'Read a workspace text file (or PDF text); page long files with offset/limit (lines).',
    parameters: toolSchema(parameters),
    risk: 'safe',
    core: true,
    assess: (raw) => assessPath(roots(), String(raw['path'] ?? '.')),
    async execute(raw, _ctx, signal) {
      const args = parameters.parse(raw);
      const resolved = await resolveInRoots(roots(), args.path);
      const taint = insideWorkspace(resolved) ? {} : { taint: 'private' as const };
      const show = (path: string) => shownPath(resolved.workspace, path);
      const shown = show(resolved.path);
      const { handle, info } = await openTarget(resolved, args.path, show);
      let loaded: Awaited<ReturnType<typeof loadText>>;
      try {
        loaded = await loadText(handle, info.size, shown, signal);
      } finally {
        await handle.close();
      }
      if ('binary' in loaded) return { content: loaded.binary, ...taint };
      const { text, truncatedBytes } = loaded;
      const lines = text.split('\n');
      const first = args.offset ?? 1;
      if (first > lines.length) {
        throw new ToolError(`${shown} has ${lines.length} lines; offset ${first} is past the end.`);
      }
      const firstLine = lines[first - 1] ?? '';
      if (args.char_offset !== undefined || firstLine.length > capChars()) {
        return { ...readLongLine(shown, first, firstLine, args.char_offset ?? 1, capChars()), ...taint };
      }
      let last = Math.min(lines.length, args.limit ? first + args.limit - 1 : lines.length);
      let shownText = lines.slice(first - 1, last).join('\n');
      if (shownText.length > capChars()) {
        let size = 0;
        last = first - 1;
        while (last < lines.length && size + (lines[last]?.length ?? 0) + 1 <= capChars()) {
          size += (lines[last]?.length ?? 0) + 1;
          last++;
        }
        shownText = lines.slice(first - 1, last).join('\n');
      }
      const total = truncatedBytes ? `${lines.length}+` : String(lines.length);
      const more = last < lines.length || truncatedBytes;
      const header =
        more || first > 1
          ? `[${shown}: lines ${first}-${last} of ${total}${more ? `; continue with offset ${last + 1}` : ''}${truncatedBytes && !(last < lines.length) ? '; only the first 16 MB of the file can be read' : ''}]\n`
          : '';
      return {
        content: header + shownText,
        details: { path: shown, bytes: info.size, first, last },
        ...taint,
      };
    },
  };
}

/** One line longer than the cap (minified JSON or JS), paged by characters. */
function readLongLine(shown: string, line: number, text: string, from: number, cap: number) {
  if (from > text.length)
    throw new ToolError(
      `Line ${line} of ${shown} has ${text.length} characters; char_offset ${from} is past its end.`,
    );
  const to = Math.min(text.length, from + cap - 1);
  const more = to < text.length ? `; continue with offset ${line} and char_offset ${to + 1}` : '';
  return {
    content: `[${shown}: line ${line} is ${text.length} characters; showing characters ${from}-${to}${more}]\n${text.slice(from - 1, to)}`,
    details: { path: shown, line, from, to },
  };
}

/** The first `bytes` bytes of an open file. */
async function readHead(handle: FileHandle, bytes: number): Promise<Buffer> {
  const buffer = Buffer.alloc(bytes);
  const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
  return buffer.subarray(0, bytesRead);
}
