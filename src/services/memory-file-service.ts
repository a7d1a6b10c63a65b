import type { UndoTidyResult } from '../memory/tidy/undo-tidy.js';
import type { Stores } from '../store/open-stores.js';
import type { ServiceContext } from './service-context.js';

export type { UndoTidyResult };

/** The owner's actions on the memory files of the workspace in force. */
export interface MemoryFileService {
  /**
   * Puts MEMORY.md of `workspace` back as it was before the last memory tidy (see undoTidy; `force` even when
   * it changed since). The tidy's module loads on first use.
   * @throws UndoTidyError saying why it cannot.
   */
  undoTidy(options: { workspace: string; force?: boolean }): Promise<UndoTidyResult>;
}

export function createMemoryFileService(
  stores: Pick<Stores, 'settings'>,
  context: ServiceContext,
): MemoryFileService {
  return {
    async undoTidy(options) {
      const { undoTidy } = await import('../memory/tidy/undo-tidy.js');
      return undoTidy({
        stores,
        workspace: options.workspace,
        timezone: context.timezone(),
        ...(options.force !== undefined ? { force: options.force } : {}),
        clock: context.now,
      });
    },
  };
}
