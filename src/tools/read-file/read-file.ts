import { open, stat } from 'node:fs/promises';
import { z } from 'zod';
import { type Tool, ToolError } from '../../agent/tool.js';
import { toolSchema } from '../tool-schema.js';
import { displayPath, inWorkspace, resolveWorkspacePath } from '../workspace-path.js';
import { isPdf, PDF_CAP_BYTES, pdfText } from './pdf-text.js';

/** The most characters one read returns; longer files are paged with offset/limit. */
export const READ_CAP_CHARS = 128_000;
/** Bytes read from disk at most per call: paging past this is by line offset within it. */
const READ_CAP_BYTES = 16 * 1024 * 1024;

const parameters = z
  .object({
    path: z.string().describe('Path in the workspace'),
    offset: z.number().int().min(1).optional().describe('First line (1-based)'),
    limit: z.number().int().min(1).optional().describe('How many lines to return'),
    char_offset: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('In a line longer than the cap: first character'),
  })
  .strict();

function looksBinary(buffer: Buffer): boolean {
  const sample = buffer.subarray(0, 8192);
  return sample.includes(0);
}

/**
 * `read_file`: a text file (or a PDF's text) from the workspace or an extra root, paged by lines, capped at
 * READ_CAP_CHARS. Files outside the workspace mark the session as having read private data.
 */
/**
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
    async execute(raw, _ctx, signal) {
      const args = parameters.parse(raw);
      const current = roots();
      const path = await resolveWorkspacePath(current, args.path);
      const taint = inWorkspace(current, path) ? {} : { taint: 'private' as const };
      const info = await stat(path).catch(() => {
        throw new ToolError(`No file at "${args.path}".`);
      });
      if (info.isDirectory()) throw new ToolError(`"${args.path}" is a folder; use list_dir.`);
      if (!info.isFile()) throw new ToolError(`"${args.path}" is not a regular file.`);
      const shown = inWorkspace(current, path) ? displayPath(current[0]!, path) : path;
      let buffer = await readHead(path, Math.min(info.size, READ_CAP_BYTES));
      signal.throwIfAborted();
      let text: string;
      let truncatedBytes = info.size > READ_CAP_BYTES;
      if (isPdf(buffer)) {
        if (info.size > PDF_CAP_BYTES)
          throw new ToolError(`${shown} is a PDF of ${info.size} bytes; PDFs up to 50 MB are read as text.`);
        if (truncatedBytes) buffer = await readHead(path, info.size);
        text = (await pdfText(buffer, signal)).text;
        truncatedBytes = false;
      } else if (looksBinary(buffer)) {
        return {
          content: `${shown} is a binary file (${info.size} bytes); it cannot be shown as text.`,
          ...taint,
        };
      } else text = buffer.toString('utf8');
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

/** The first `bytes` bytes of a file. */
async function readHead(path: string, bytes: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
