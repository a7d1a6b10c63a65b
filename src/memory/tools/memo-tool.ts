import { z } from 'zod';
import { type Tool, ToolError } from '../../agent/tool.js';
import { TOOL_AREAS } from '../../agent/tool-catalog.js';
import { toolSchema } from '../../agent/tool-schema.js';
import type { Memo, MemoService } from '../../services/memo-service.js';
import { formatStamp } from '../format-time.js';

const parameters = z
  .object({
    action: z.enum(['save', 'list', 'search', 'delete']),
    text: z.string().optional().describe('save: the note; search: words to find'),
    id: z.number().int().min(1).optional().describe('delete: the memo id'),
    limit: z.number().int().min(1).max(50).optional().describe('list/search: how many (default 20)'),
  })
  .strict();

/** One memo as a line: `#id (date) text`. */
export function memoLine(memo: Memo, zone?: string): string {
  return `#${memo.id} (${formatStamp(memo.createdAt, zone)}) ${memo.text}`;
}

function preview(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

/** `memo`: the owner's notes (save, list, search, delete). Moderate risk; reads are private data. */
export function createMemoTool(deps: { memos: MemoService; timezone?: () => string | undefined }): Tool {
  return {
    name: 'memo',
    description:
      'Keep notes for the owner: save, list, search or delete memos (short texts the owner wants kept verbatim).',
    parameters: toolSchema(parameters),
    risk: 'moderate',
    area: TOOL_AREAS.notes,
    assess: (raw) =>
      raw['action'] === 'save' && typeof raw['text'] === 'string'
        ? { persists: `a memo ("${preview(raw['text'])}")` }
        : {},
    async execute(raw) {
      const args = parameters.parse(raw);
      const zone = deps.timezone?.();
      const lines = (memos: Memo[]) => memos.map((memo) => memoLine(memo, zone)).join('\n');
      switch (args.action) {
        case 'save': {
          if (!args.text?.trim()) throw new ToolError('memo save needs "text": the note to keep.');
          const saved = deps.memos.add({ text: args.text });
          if (!saved.ok) throw new ToolError(saved.error);
          return { content: `Saved memo #${saved.memo.id}.`, details: saved.memo };
        }
        case 'list': {
          const memos = deps.memos.list(args.limit ?? 20);
          const total = deps.memos.count();
          const content = memos.length
            ? `${total} memo(s)${total > memos.length ? `, newest ${memos.length} shown` : ''}:\n${lines(memos)}`
            : 'No memos yet.';
          return { content, details: memos, taint: 'private' };
        }
        case 'search': {
          if (!args.text?.trim()) throw new ToolError('memo search needs "text": words to look for.');
          const memos = deps.memos.search(args.text, args.limit ?? 20);
          const content = memos.length ? lines(memos) : `No memo matches "${args.text}".`;
          return { content, details: memos, taint: 'private' };
        }
        case 'delete': {
          if (args.id === undefined) throw new ToolError('memo delete needs "id" (see memo list).');
          if (!deps.memos.delete(args.id).ok)
            throw new ToolError(`There is no memo #${args.id}; list memos to see the ids.`);
          return { content: `Deleted memo #${args.id}.` };
        }
      }
    },
  };
}
