import type { Database } from 'better-sqlite3';
import { z } from 'zod';
import type { Tool } from '../../agent/tool.js';
import { toolSchema } from '../../tools/tool-schema.js';
import { formatSearchResult, searchMemory } from '../memory-search.js';

const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'use YYYY-MM-DD');

const parameters = z
  .object({
    query: z.string().min(1).describe('Words to look for (names, topics); not a question'),
    since: date.optional().describe('Only from this day on (YYYY-MM-DD), e.g. 2026-03-01 for "in March"'),
    until: date.optional().describe('Only up to this day (YYYY-MM-DD, inclusive)'),
    limit: z.number().int().min(1).max(30).optional().describe('Results per source (default 8)'),
  })
  .strict();

/**
 * `memory_search`: past conversations of all sessions (full-text, ranked, with dates and session) and
 * HISTORY.md entries. Safe and core; results are private data (the session is tainted `private`).
 */
export function createMemorySearchTool(deps: {
  db: Database;
  workspace: () => string;
  timezone?: () => string | undefined;
}): Tool {
  return {
    name: 'memory_search',
    description:
      'Search past conversations (all sessions) and HISTORY.md for what the owner said or did, e.g. "what did I tell you about X in March". Returns dated excerpts, best match first.',
    parameters: toolSchema(parameters),
    risk: 'safe',
    core: true,
    async execute(raw) {
      const args = parameters.parse(raw);
      const zone = deps.timezone?.();
      const result = searchMemory(
        { db: deps.db, workspace: deps.workspace(), ...(zone ? { timezone: zone } : {}) },
        {
          text: args.query,
          ...(args.since ? { since: args.since } : {}),
          ...(args.until ? { until: args.until } : {}),
          ...(args.limit ? { limit: args.limit } : {}),
        },
      );
      return {
        content: formatSearchResult(args.query, result),
        details: result,
        taint: 'private',
      };
    },
  };
}
