import { z } from 'zod';
import type { Tool } from '../../agent/tool.js';
import { toolSchema } from '../../agent/tool-schema.js';
import type { Stores } from '../../store/open-stores.js';
import { HELD_FACTS } from '../consolidator.js';
import { formatSearchResult, type MemorySearcher, searchMemory } from '../memory-search.js';

/**
 * A day, checked when the call runs rather than as a schema `pattern`, whose escaped regex costs the model
 * more tokens than the words "YYYY-MM-DD".
 */
const date = z.string().refine((text) => /^\d{4}-\d{2}-\d{2}$/.test(text), 'use YYYY-MM-DD');

const parameters = z
  .object({
    query: z.string().min(1).describe('Keywords, not a question'),
    since: date.optional().describe('YYYY-MM-DD'),
    until: date.optional().describe('YYYY-MM-DD, inclusive'),
    limit: z.number().int().min(1).max(30).optional().describe('Default 8'),
  })
  .strict();

/**
 * `memory_search`: past conversations of all sessions (full-text, ranked, with dates and session) and
 * HISTORY.md entries. Safe and core; results are private data (the session is tainted `private`), or
 * untrusted when any hit comes from a session that had read untrusted content. `search` replaces the
 * keyword search (semantic memory search); the result has the same shape either way.
 */
export function createMemorySearchTool(deps: {
  stores: Pick<Stores, 'messages' | 'taint'>;
  workspace: () => string;
  timezone?: () => string | undefined;
  search?: MemorySearcher;
}): Tool {
  return {
    name: 'memory_search',
    description:
      'Search past conversations and HISTORY.md (e.g. "what did I say about X in March"); returns dated excerpts.',
    parameters: toolSchema(parameters),
    risk: 'safe',
    core: true,
    async execute(raw, _ctx, signal) {
      const args = parameters.parse(raw);
      const zone = deps.timezone?.();
      const query = {
        text: args.query,
        ...(args.since ? { since: args.since } : {}),
        ...(args.until ? { until: args.until } : {}),
        ...(args.limit ? { limit: args.limit } : {}),
      };
      const result = deps.search
        ? await deps.search(query, signal)
        : searchMemory(
            {
              messages: deps.stores.messages,
              workspace: deps.workspace(),
              ...(zone ? { timezone: zone } : {}),
            },
            query,
          );
      // Text that came from a session which had read untrusted content (a page the model quoted, a held
      // "fact") is as untrusted as the page: it must not launder an injection into a clean session.
      const untrustedSessions = deps.stores.taint.untrustedSessions();
      const untrusted =
        result.messages.some((hit) => untrustedSessions.has(hit.sessionId)) ||
        result.history.some(
          (entry) => untrustedSessions.has(entry.sessionId ?? '') || entry.body.includes(HELD_FACTS),
        );
      return {
        content: formatSearchResult(args.query, result),
        details: result,
        taint: untrusted ? 'untrusted' : 'private',
      };
    },
  };
}
