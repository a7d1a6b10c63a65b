import { z } from 'zod';
import { type Tool, ToolError } from '../../agent/tool.js';
import { toolSchema } from '../../agent/tool-schema.js';
import { writeFileAtomicAsync } from '../fs/atomic-write.js';
import { openFileForRead } from '../fs/open-file-for-read.js';
import { PathError } from '../fs/path-error.js';
import { type ResolvedPath, resolveInRoots, shownPath } from '../fs/workspace-path.js';
import { assessFileWrite, type FileWritten, tellWritten, WRITE_CAP_BYTES } from '../write-file/write-file.js';
import { missingMatchHint } from './closest-line.js';

const parameters = z
  .object({
    path: z.string(),
    old_text: z.string(),
    new_text: z.string(),
    replace_all: z.boolean().optional(),
  })
  .strict();

function lineOf(content: string, index: number): number {
  let line = 1;
  for (let at = content.indexOf('\n'); at !== -1 && at < index; at = content.indexOf('\n', at + 1)) line++;
  return line;
}

function occurrences(content: string, text: string): number[] {
  const found: number[] = [];
  for (let at = content.indexOf(text); at !== -1; at = content.indexOf(text, at + text.length))
    found.push(at);
  return found;
}

/**
 * The file's bytes, read through openFileForRead (no symlink followed, a single hard link), at most
 * WRITE_CAP_BYTES and not binary. @throws ToolError saying what to do instead.
 */
async function readForEdit(
  resolved: ResolvedPath,
  requested: string,
  show: (path: string) => string,
): Promise<Buffer> {
  const { handle, info } = await openFileForRead({ root: resolved.root, path: resolved.path, show }).catch(
    (error) => {
      if (error instanceof PathError && error.problem === 'missing')
        throw new ToolError(`No file at "${requested}"; to create one use write_file.`);
      throw error;
    },
  );
  try {
    if (info.size > WRITE_CAP_BYTES)
      throw new ToolError(`"${requested}" is ${info.size} bytes; edit_file handles files up to 5 MB.`);
    const buffer = await handle.readFile();
    if (buffer.subarray(0, 8192).includes(0))
      throw new ToolError(`"${requested}" is a binary file; it cannot be edited as text.`);
    return buffer;
  } finally {
    await handle.close();
  }
}

/**
 * `edit_file`: replaces an exact piece of text in a workspace file and writes it atomically. A missing match
 * reports the closest line (or a whitespace mismatch); an ambiguous one lists the lines it occurs on.
 */
export function createEditFileTool(roots: () => string[], onWritten?: FileWritten): Tool {
  return {
    name: 'edit_file',
    description:
      'Replace exact text in a workspace file: old_text must match exactly once (or set replace_all). Read the file first.',
    parameters: toolSchema(parameters),
    risk: 'moderate',
    core: true,
    assess: (raw) => assessFileWrite(roots(), String(raw['path'] ?? '')),
    async execute(raw, _ctx, signal) {
      const args = parameters.parse(raw);
      if (args.old_text === '')
        throw new ToolError('old_text is empty; to write a whole file use write_file.');
      if (args.old_text === args.new_text)
        throw new ToolError('old_text and new_text are the same; nothing to change.');
      const resolved = await resolveInRoots(roots(), args.path);
      const show = (path: string) => shownPath(resolved.workspace, path);
      const buffer = await readForEdit(resolved, args.path, show);
      const content = buffer.toString('utf8');
      let oldText = args.old_text;
      let newText = args.new_text;
      if (content.includes('\r\n') && !oldText.includes('\r\n') && !content.includes(oldText)) {
        oldText = oldText.replace(/\n/g, '\r\n');
        newText = newText.replace(/\r?\n/g, '\r\n');
      }
      const shown = show(resolved.path);
      const found = occurrences(content, oldText);
      if (found.length === 0)
        throw new ToolError(`old_text was not found in ${shown}. ${missingMatchHint(content, oldText)}`);
      if (found.length > 1 && !args.replace_all) {
        const lines = found.slice(0, 10).map((index) => lineOf(content, index));
        throw new ToolError(
          `old_text occurs ${found.length} times in ${shown} (lines ${lines.join(', ')}${found.length > 10 ? ', …' : ''}); include more surrounding text to make it unique, or set replace_all.`,
        );
      }
      const updated = args.replace_all
        ? content.split(oldText).join(newText)
        : content.replace(oldText, () => newText);
      if (Buffer.byteLength(updated, 'utf8') > WRITE_CAP_BYTES)
        throw new ToolError(`The edited file would exceed 5 MB; it was not changed.`);
      signal.throwIfAborted();
      await writeFileAtomicAsync({ root: resolved.root, path: resolved.path, data: updated, show });
      tellWritten(onWritten, {
        workspace: resolved.workspace,
        path: resolved.path,
        content: updated,
        tool: 'edit_file',
      });
      const line = lineOf(content, found[0]!);
      const count = args.replace_all ? found.length : 1;
      return {
        content: `Edited ${shown}: replaced ${count} occurrence${count === 1 ? '' : 's'} (first at line ${line}).`,
        details: { path: shown, replacements: count, line },
      };
    },
  };
}
