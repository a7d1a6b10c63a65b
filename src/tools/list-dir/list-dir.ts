import type { Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { z } from 'zod';
import { type Tool, ToolError } from '../../agent/tool.js';
import { toolSchema } from '../../agent/tool-schema.js';
import { revealHiddenCharacters } from '../../util/hidden-characters.js';
import { type OpenedFolder, openFolder } from '../fs/open-folder.js';
import { PathError } from '../fs/path-error.js';
import { assessPath, type ResolvedPath, resolveInRoots, shownPath } from '../fs/workspace-path.js';

export const LIST_CAP_ENTRIES = 500;

const parameters = z
  .object({
    path: z.string().optional().describe('Default: the workspace'),
  })
  .strict();

/** Opens the folder to list (see openFolder), with list_dir's wording for a file or a missing folder. */
async function openTarget(resolved: ResolvedPath, requested: string): Promise<OpenedFolder> {
  const show = (path: string) => shownPath(resolved.workspace, path);
  return openFolder({ root: resolved.root, folder: resolved.path, show }).catch((error) => {
    if (error instanceof PathError && error.path === resolved.path) {
      if (error.problem === 'not-folder') throw new ToolError(`"${requested}" is a file; use read_file.`);
      if (error.problem === 'missing') throw new ToolError(`No folder at "${requested}".`);
    }
    throw error;
  });
}

/**
 * `list_dir`: the entries of a workspace folder, folders first, with file sizes; at most LIST_CAP_ENTRIES.
 * The folder is opened without following symlinks below its root (see openFolder) and read through that
 * open folder. Names are shown with hidden characters made visible (a U+202E in a name displays reversed;
 * a line break would fake another entry).
 */
export function createListDirTool(roots: () => string[]): Tool {
  return {
    name: 'list_dir',
    description: 'List a folder in the workspace (folders end with /, files show their size).',
    parameters: toolSchema(parameters),
    risk: 'safe',
    core: true,
    assess: (raw) => assessPath(roots(), String(raw['path'] ?? '.')),
    async execute(raw, _ctx, signal) {
      const args = parameters.parse(raw);
      const requested = args.path ?? '.';
      const resolved = await resolveInRoots(roots(), requested);
      const folder = await openTarget(resolved, requested);
      let entries: Dirent[];
      let lines: string[];
      try {
        entries = await readdir(folder.entry(''), { withFileTypes: true });
        signal.throwIfAborted();
        entries.sort(
          (a, b) => Number(b.isDirectory()) - Number(a.isDirectory()) || a.name.localeCompare(b.name),
        );
        lines = await Promise.all(
          entries.slice(0, LIST_CAP_ENTRIES).map(async (entry) => {
            const name = revealHiddenCharacters(entry.name, { singleLine: true });
            if (entry.isDirectory()) return `${name}/`;
            if (entry.isSymbolicLink()) return `${name} -> (link)`;
            const size = await lstat(folder.entry(entry.name)).then(
              (info) => info.size,
              () => 0,
            );
            return `${name}  ${size} B`;
          }),
        );
      } finally {
        await folder.close();
      }
      const where = shownPath(resolved.workspace, resolved.path);
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
