import { join } from 'node:path';
import type { RuntimeCommand } from '../agent/agent-runtime.js';
import type { SessionStore } from '../agent/session-store.js';
import type { ConsolidationStatusStore } from '../store/consolidation-status-repository.js';
import type { FileVersionStore } from '../store/ports.js';
import { updateInstructionFile } from './file-history.js';
import { formatStamp } from './format-time.js';
import { readSnapshot } from './markdown-file.js';
import { MEMORY_TEMPLATE, matchingFacts, removeLines } from './memory-file.js';

/** How long a `/forget` proposal waits for `/forget yes`. */
const CONFIRM_MS = 5 * 60_000;
const SHOW_CHARS = 3500;

export interface MemoryCommandDeps {
  store: SessionStore;
  status: ConsolidationStatusStore;
  workspace: () => string;
  timezone?: () => string | undefined;
  clock?: () => number;
  /** The instruction files' history: `/forget yes` records MEMORY.md's new text by author `/forget`. */
  versions?: FileVersionStore;
}

/**
 * `/memory` (what Wren remembers: MEMORY.md, this session's summary, consolidation health) and
 * `/forget <text>` (proposes the MEMORY.md lines containing the text; `/forget yes` removes them, `/forget no`
 * keeps them). Proposals are per session and expire after 5 minutes.
 */
export function createMemoryCommands(deps: MemoryCommandDeps): Record<string, RuntimeCommand> {
  const clock = deps.clock ?? Date.now;
  const proposals = new Map<string, { lines: string[]; expires: number }>();
  const memoryPath = () => join(deps.workspace(), 'MEMORY.md');

  const memory: RuntimeCommand = {
    description: 'show what Wren remembers (MEMORY.md, this session’s summary)',
    async run(_args, { session }) {
      const text = readSnapshot(memoryPath()).text.trim();
      const facts = text && text !== MEMORY_TEMPLATE.trim() ? text : '';
      const shown =
        facts.length > SHOW_CHARS
          ? `${facts.slice(0, SHOW_CHARS)}\n[… ${facts.length - SHOW_CHARS} more characters in MEMORY.md]`
          : facts;
      const { summary, consolidatedSeq } = await deps.store.memoryState(session.id);
      const out = [shown ? `MEMORY.md:\n${shown}` : 'MEMORY.md has no facts yet.'];
      out.push(
        summary
          ? `This session so far (${consolidatedSeq} messages summarised):\n${summary}`
          : 'Nothing of this session is summarised yet.',
      );
      const health = deps.status.get(session.id);
      if (health && health.failures > 0) {
        const next = health.nextAttemptAt
          ? `; next try ${formatStamp(health.nextAttemptAt, deps.timezone?.())}`
          : '';
        out.push(
          `Consolidation is failing (${health.failures}× in a row: ${health.lastError ?? 'unknown error'}${next}).`,
        );
      }
      out.push('Edit workspace/MEMORY.md by hand, or use /forget <text>.');
      return out.join('\n\n');
    },
  };

  const forget: RuntimeCommand = {
    description: 'remove facts containing <text> from MEMORY.md (asks first)',
    async run(args, { session }) {
      const answer = args.trim().toLowerCase();
      const pending = proposals.get(session.id);
      if (answer === 'yes' || answer === 'no') {
        proposals.delete(session.id);
        if (!pending || pending.expires < clock()) return 'Nothing to confirm: send /forget <text> first.';
        if (answer === 'no') return 'Kept MEMORY.md as it is.';
        const result = await updateInstructionFile(
          {
            workspace: deps.workspace(),
            path: 'MEMORY.md',
            author: '/forget',
            note: `${pending.lines.length} line(s) removed`,
            ...(deps.versions ? { versions: deps.versions } : {}),
          },
          (current) => removeLines(current, pending.lines),
        );
        const gone = pending.lines.filter((line) => !result.text.split('\n').includes(line)).length;
        return gone
          ? `Removed ${gone} line(s) from MEMORY.md.`
          : 'Those lines were already gone from MEMORY.md.';
      }
      if (!answer)
        return 'Usage: /forget <text> — removes MEMORY.md facts containing the text, after you confirm.';
      const lines = matchingFacts(readSnapshot(memoryPath()).text, args);
      if (lines.length === 0) return `Nothing in MEMORY.md contains "${args.trim()}".`;
      proposals.set(session.id, { lines, expires: clock() + CONFIRM_MS });
      return `This would remove from MEMORY.md:\n${lines.join('\n')}\n\nSend /forget yes to remove, /forget no to keep.`;
    },
  };

  return { memory, forget };
}
