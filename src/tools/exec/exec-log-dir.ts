import { join } from 'node:path';

/** Where the exec tool saves the full output of commands, relative to the workspace (retention prunes it). */
export const EXEC_LOG_DIR = join('.wren', 'exec');
