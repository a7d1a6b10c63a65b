import { stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { type Tool, type ToolAssessment, ToolError } from '../../agent/tool.js';
import { toolSchema } from '../../agent/tool-schema.js';
import { secretFileName } from '../../util/secret-file-names.js';
import { writeFileAtomicAsync } from '../fs/atomic-write.js';
import { displayPath, type ResolvedPath, resolveInRoots, shownPath } from '../fs/workspace-path.js';

/** The largest content one write_file call accepts, in bytes (UTF-8). */
export const WRITE_CAP_BYTES = 5 * 1024 * 1024;

const parameters = z
  .object({
    path: z.string(),
    content: z.string().describe('The whole new content'),
  })
  .strict();

/** Workspace files Wren reads into its system prompt (persona, standing instructions, memory, skills). */
const INSTRUCTION_FILES = /^(SOUL|AGENTS|USER|MEMORY|HEARTBEAT)\.md$|^skills\//;

/**
 * What a write or edit of `requested` binds a grant to: the folder prefix of the resolved path (`notes/`,
 * `./` for the workspace itself); signatures for writes that run code later (git hooks), leave the workspace
 * (extra roots) or replace a secret file (`.env`, a key: by the name asked for or the file a link leads to).
 * Never throws: an unresolvable path is reported as its raw text.
 */
export async function assessFileWrite(roots: string[], requested: string): Promise<ToolAssessment> {
  let resolved: ResolvedPath;
  try {
    resolved = await resolveInRoots(roots, requested);
  } catch {
    return { target: requested };
  }
  const shown = displayPath(resolved.workspace, resolved.path);
  const folder = shown.includes('/') ? `${shown.slice(0, shown.lastIndexOf('/') + 1)}` : './';
  const signatures: string[] = [];
  if (/(^|\/)\.git\/hooks\//.test(shown)) signatures.push('writes a git hook (runs on git commands)');
  // A git config (or a `.git` file naming another git folder) can make the next `git status` run a program.
  else if (
    /(^|\/)\.git(\/|$)/.test(shown) ||
    (/(^|\/)(config|HEAD)$/.test(shown) && (await looksLikeGitFolder(resolved.path)))
  )
    signatures.push(`changes git's own files (${shown})`);
  if (shown.startsWith('../') || shown.startsWith('/')) signatures.push('writes outside the workspace');
  // These files become part of every system prompt: a prompt-injected write would persist.
  if (INSTRUCTION_FILES.test(shown)) signatures.push(`changes Wren's own instructions (${shown})`);
  // A .env or key overwritten loses the owner's secrets; one planted is loaded by the next program run there.
  if (secretFileName(basename(resolved.path)) || secretFileName(basename(requested.replace(/\/+$/, ''))))
    signatures.push(`writes a secret file (${shown})`);
  return { target: folder, path: shown, ...(signatures.length > 0 ? { signatures } : {}) };
}

/** Whether the folder of `path` is (or will look like) a bare git folder: it holds HEAD and config or objects/. */
async function looksLikeGitFolder(path: string): Promise<boolean> {
  const folder = dirname(path);
  const has = (name: string) =>
    stat(join(folder, name)).then(
      () => true,
      () => false,
    );
  return (await has('HEAD')) || ((await has('objects')) && (await has('refs')));
}

/**
 * Told what a file tool wrote: the real workspace, the file's real path, its new text and the tool's name.
 * Called after the write; a throw is ignored (the file is written either way).
 */
export type FileWritten = (file: { workspace: string; path: string; content: string; tool: string }) => void;

/** Tells `onWritten` of a write, never failing the tool over it. */
export function tellWritten(onWritten: FileWritten | undefined, file: Parameters<FileWritten>[0]): void {
  try {
    onWritten?.(file);
  } catch {
    // best effort: the history misses this write; the next read of the file records it as a disk version
  }
}

/**
 * `write_file`: creates or replaces a workspace file atomically (temp + fsync + rename), at most 5 MB, with
 * missing folders created; the write cannot be redirected outside by a folder swapped after resolution (see
 * writeFileAtomicAsync).
 */
export function createWriteFileTool(roots: () => string[], onWritten?: FileWritten): Tool {
  return {
    name: 'write_file',
    description:
      'Create or overwrite a workspace file (missing folders are created). To change part of a file, use edit_file.',
    parameters: toolSchema(parameters),
    risk: 'moderate',
    core: true,
    assess: (raw) => assessFileWrite(roots(), String(raw['path'] ?? '')),
    async execute(raw, _ctx, signal) {
      const args = parameters.parse(raw);
      const size = Buffer.byteLength(args.content, 'utf8');
      if (size > WRITE_CAP_BYTES)
        throw new ToolError(
          `The content is ${size} bytes; write_file takes at most ${WRITE_CAP_BYTES} bytes (5 MB). Split it into several files.`,
        );
      const current = roots();
      if (args.path.trim() === '')
        throw new ToolError('The path is empty; name a file such as "notes/todo.md".');
      const resolved = await resolveInRoots(current, args.path);
      const show = (path: string) => shownPath(resolved.workspace, path);
      signal.throwIfAborted();
      const { created } = await writeFileAtomicAsync({
        root: resolved.root,
        path: resolved.path,
        data: args.content,
        show,
      });
      tellWritten(onWritten, {
        workspace: resolved.workspace,
        path: resolved.path,
        content: args.content,
        tool: 'write_file',
      });
      const shown = show(resolved.path);
      return {
        content: `${created ? 'Created' : 'Replaced'} ${shown} (${size} bytes).`,
        details: { path: shown, bytes: size, created },
      };
    },
  };
}
