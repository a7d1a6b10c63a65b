import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { type Tool, ToolError } from '../../agent/tool.js';
import { toolSchema } from '../tool-schema.js';
import { displayPath, resolveWorkspacePath } from '../workspace-path.js';

export const LIST_CAP_ENTRIES = 500;

const parameters = z
  .object({
    path: z.string().optional().describe('Folder relative to the workspace; the workspace itself by default'),
  })
  .strict();

/** `list_dir`: the entries of a workspace folder, folders first, with file sizes; at most LIST_CAP_ENTRIES. */
export function createListDirTool(roots: () => string[]): Tool {
  return {
    name: 'list_dir',
    description: 'List a folder in the workspace (folders end with /, files show their size).',
    parameters: toolSchema(parameters),
    risk: 'safe',
    core: true,
    async execute(raw, _ctx, signal) {
      const args = parameters.parse(raw);
      const requested = args.path ?? '.';
      const path = await resolveWorkspacePath(roots(), requested);
      const entries = await readdir(path, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOTDIR') throw new ToolError(`"${requested}" is a file; use read_file.`);
        throw new ToolError(`No folder at "${requested}".`);
      });
      signal.throwIfAborted();
      entries.sort(
        (a, b) => Number(b.isDirectory()) - Number(a.isDirectory()) || a.name.localeCompare(b.name),
      );
      const shown = entries.slice(0, LIST_CAP_ENTRIES);
      const lines = await Promise.all(
        shown.map(async (entry) => {
          if (entry.isDirectory()) return `${entry.name}/`;
          if (entry.isSymbolicLink()) return `${entry.name} -> (link)`;
          const size = await stat(join(path, entry.name)).then(
            (info) => info.size,
            () => 0,
          );
          return `${entry.name}  ${size} B`;
        }),
      );
      const where = displayPath(roots()[0]!, path);
      const header = `${where}: ${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}`;
      const more =
        entries.length > LIST_CAP_ENTRIES
          ? `\n[${entries.length - LIST_CAP_ENTRIES} more entries not shown]`
          : '';
      return {
        content: `${header}\n${lines.join('\n')}${more}`,
        details: { path: where, count: entries.length },
      };
    },
  };
}
