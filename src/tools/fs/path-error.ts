import { ToolError } from '../../agent/tool.js';

/** Why a file tool refused a path once it was opened (after resolution passed). */
export type PathProblem =
  | 'missing'
  | 'not-folder'
  | 'folder'
  | 'not-file'
  | 'link'
  | 'moved'
  | 'denied'
  | 'hard-links';

/**
 * A file-tool refusal that names its reason and the real path it concerns, so a tool can reword it for its
 * own case ("use list_dir", "to create one use write_file"). The message is already fit for the model.
 */
export class PathError extends ToolError {
  constructor(
    readonly problem: PathProblem,
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/** The errno code of a file-system error (`ENOENT`…), or undefined. */
export function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}
