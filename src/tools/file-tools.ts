import type { Tool } from '../agent/tool.js';
import { createEditFileTool } from './edit-file/edit-file.js';
import { createListDirTool } from './list-dir/list-dir.js';
import { createReadFileTool } from './read-file/read-file.js';
import { createWriteFileTool, type FileWritten } from './write-file/write-file.js';

export interface FileToolsOptions {
  /** The workspace (first) and the extra roots, read at every call so config reloads apply. */
  roots: () => string[];
  /** The most characters one `read_file` returns (see createReadFileTool). */
  readCapChars?: () => number;
  /** Told each file `write_file` or `edit_file` wrote (file history records the instruction files). */
  onFileWritten?: FileWritten;
}

/** `read_file`, `write_file`, `edit_file` and `list_dir`, all confined to `roots()`; all four are core tools. */
export function createFileTools(options: FileToolsOptions): Tool[] {
  return [
    createReadFileTool(options.roots, options.readCapChars),
    createWriteFileTool(options.roots, options.onFileWritten),
    createEditFileTool(options.roots, options.onFileWritten),
    createListDirTool(options.roots),
  ];
}
