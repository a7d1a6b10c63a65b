import { open, stat } from 'node:fs/promises';
import { z } from 'zod';
import { type Tool, ToolError } from '../../agent/tool.js';
import { toolSchema } from '../tool-schema.js';
import { displayPath, resolveWorkspacePath } from '../workspace-path.js';

/** The most characters one read returns; longer files are paged with offset/limit. */
export const READ_CAP_CHARS = 128_000;
/** Bytes read from disk at most per call: paging past this is by line offset within it. */
const READ_CAP_BYTES = 16 * 1024 * 1024;

const parameters = z
  .object({
    path: z.string().describe('File path relative to the workspace'),
    offset: z.number().int().min(1).optional().describe('First line to return (1-based)'),
    limit: z.number().int().min(1).optional().describe('How many lines to return'),
  })
  .strict();

function looksBinary(buffer: Buffer): boolean {
  const sample = buffer.subarray(0, 8192);
  return sample.includes(0);
}

/** `read_file`: a text file from the workspace, paged by lines, capped at READ_CAP_CHARS. */
export function createReadFileTool(roots: () => string[]): Tool {
  return {
    name: 'read_file',
    description: 'Read a text file from the workspace. Use offset/limit (lines) to page through long files.',
    parameters: toolSchema(parameters),
    risk: 'safe',
    async execute(raw, _ctx, signal) {
      const args = parameters.parse(raw);
      const path = await resolveWorkspacePath(roots(), args.path);
      const info = await stat(path).catch(() => {
        throw new ToolError(`No file at "${args.path}".`);
      });
      if (info.isDirectory()) throw new ToolError(`"${args.path}" is a folder; use list_dir.`);
      if (!info.isFile()) throw new ToolError(`"${args.path}" is not a regular file.`);
      const handle = await open(path, 'r');
      let buffer: Buffer;
      try {
        buffer = Buffer.alloc(Math.min(info.size, READ_CAP_BYTES));
        await handle.read(buffer, 0, buffer.length, 0);
      } finally {
        await handle.close();
      }
      signal.throwIfAborted();
      const shown = displayPath(roots()[0]!, path);
      if (looksBinary(buffer)) {
        return { content: `${shown} is a binary file (${info.size} bytes); it cannot be shown as text.` };
      }
      const lines = buffer.toString('utf8').split('\n');
      const first = args.offset ?? 1;
      if (first > lines.length) {
        throw new ToolError(`${shown} has ${lines.length} lines; offset ${first} is past the end.`);
      }
      let last = Math.min(lines.length, args.limit ? first + args.limit - 1 : lines.length);
      let text = lines.slice(first - 1, last).join('\n');
      if (text.length > READ_CAP_CHARS) {
        text = text.slice(0, READ_CAP_CHARS);
        last = first + text.split('\n').length - 2;
        text = lines.slice(first - 1, last).join('\n');
      }
      const truncatedBytes = info.size > READ_CAP_BYTES;
      const total = truncatedBytes ? `${lines.length}+` : String(lines.length);
      const more = last < lines.length || truncatedBytes;
      const header =
        more || first > 1
          ? `[${shown}: lines ${first}-${last} of ${total}${more ? `; continue with offset ${last + 1}` : ''}]\n`
          : '';
      return { content: header + text, details: { path: shown, bytes: info.size, first, last } };
    },
  };
}
