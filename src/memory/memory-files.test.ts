import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConsolidation } from './consolidation-request.js';
import {
  appendHistoryEntry,
  formatHistoryEntry,
  historyMarker,
  parseHistoryEntries,
} from './history-file.js';
import { updateMarkdownFile } from './markdown-file.js';
import { memorySectionSchema, toMemoryConfig } from './memory-config.js';
import { applyMemoryEdits, MEMORY_TEMPLATE, matchingFacts, normalizeFact } from './memory-file.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const temp = () => {
  dir = mkdtempSync(join(tmpdir(), 'wren-md-'));
  return dir;
};

describe('updateMarkdownFile', () => {
  it('re-applies the change on top of a hand edit made between read and write', async () => {
    const path = join(temp(), 'MEMORY.md');
    writeFileSync(path, '# Memory\n- a\n');
    let edits = 0;
    const result = await updateMarkdownFile(path, (text) => `${text}- from wren\n`, {
      beforeWrite: () => {
        if (edits++ === 0) writeFileSync(path, '# Memory\n- a\n- hand edit\n');
      },
    });
    expect(result.changed).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe('# Memory\n- a\n- hand edit\n- from wren\n');
  });

  it('gives up with a clear error when the file keeps changing, leaving the last hand edit', async () => {
    const path = join(temp(), 'MEMORY.md');
    writeFileSync(path, 'v0\n');
    let n = 0;
    await expect(
      updateMarkdownFile(path, (text) => `${text}x\n`, {
        attempts: 3,
        beforeWrite: () => writeFileSync(path, `v${++n}\n`),
      }),
    ).rejects.toThrow(/kept changing while Wren tried to update it \(3 tries\)/);
    expect(readFileSync(path, 'utf8')).toBe('v3\n');
  });

  it('serialises concurrent updates of one file in this process and creates a missing file', async () => {
    const path = join(temp(), 'HISTORY.md');
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => updateMarkdownFile(path, (text) => `${text}line ${i}\n`)),
    );
    expect(readFileSync(path, 'utf8').split('\n').filter(Boolean)).toHaveLength(20);
    expect(await updateMarkdownFile(path, () => undefined)).toMatchObject({ changed: false });
  });
});

describe('MEMORY.md edits', () => {
  it('adds new facts once, removes superseded ones, and is idempotent', () => {
    const start = `${MEMORY_TEMPLATE}- Lives in Berlin.\n`;
    const edits = { add: ['Lives in Porto', 'likes  tea.', 'Likes tea'], remove: ['- lives in berlin'] };
    const once = applyMemoryEdits(start, edits);
    expect(once).toBe(`${MEMORY_TEMPLATE}- Lives in Porto\n- likes tea.\n`);
    expect(applyMemoryEdits(once, edits)).toBe(once);
    expect(applyMemoryEdits('', { add: ['x'], remove: [] })).toBe(`${MEMORY_TEMPLATE}- x\n`);
    expect(applyMemoryEdits(start, { add: [' ', '- '], remove: [] })).toBe(start);
    expect(normalizeFact('* Likes Tea!')).toBe('likes tea');
  });

  it('finds the lines /forget would remove, never headings', () => {
    const text = '# Tea notes\n- Likes green tea.\n- Drinks coffee.\n';
    expect(matchingFacts(text, 'TEA')).toEqual(['- Likes green tea.']);
    expect(matchingFacts(text, '   ')).toEqual([]);
  });
});

describe('HISTORY.md entries', () => {
  it('appends an entry once per marker and parses entries back with date and session', () => {
    const marker = historyMarker('session-1234567890', 1, 12);
    const entry = formatHistoryEntry({
      stamp: '2026-03-14 09:30',
      sessionId: 'session-1234567890',
      fromSeq: 1,
      throughSeq: 12,
      text: 'Planned the trip.',
    });
    const first = appendHistoryEntry('', entry, marker)!;
    expect(first.startsWith('# History')).toBe(true);
    expect(appendHistoryEntry(first, entry, marker)).toBeUndefined();
    const withHand = `${first}\n## 2026-04-01 hand-written\nBought a bike.\n`;
    expect(parseHistoryEntries(withHand)).toEqual([
      {
        heading: '2026-03-14 09:30 · session session-',
        body: 'Planned the trip.',
        date: '2026-03-14',
        sessionId: 'session-1234567890',
      },
      { heading: '2026-04-01 hand-written', body: 'Bought a bike.', date: '2026-04-01' },
    ]);
  });
});

describe('memory config', () => {
  it('defaults every key and converts to milliseconds', () => {
    expect(toMemoryConfig(memorySectionSchema.parse({}))).toMatchObject({
      consolidateAt: 0.5,
      modelTag: 'small',
      retryBaseMs: 30_000,
      newSessionWaitMs: 60_000,
    });
    expect(
      toMemoryConfig(memorySectionSchema.parse({ retry_base_seconds: '90', retry_max_seconds: 10 }))
        .retryMaxMs,
    ).toBe(90_000);
  });

  it('rejects unknown keys and out-of-range values', () => {
    expect(memorySectionSchema.safeParse({ consolidate_att: 0.5 }).success).toBe(false);
    expect(memorySectionSchema.safeParse({ consolidate_at: 0 }).success).toBe(false);
    expect(memorySectionSchema.safeParse({ consolidate_at: 1.5 }).success).toBe(false);
    expect(memorySectionSchema.safeParse({ memory_prompt_chars: 10 }).success).toBe(false);
  });
});

describe('parseConsolidation', () => {
  const base = { toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 } };
  it('reads a tool call, plain-text sections, or bare text', () => {
    const call = {
      id: 'c',
      name: 'save_memory',
      arguments: JSON.stringify({ history_entry: 'h', summary: 's', memory_add: ['f'] }),
    };
    expect(parseConsolidation({ ...base, text: '', stopReason: 'tool_calls', toolCalls: [call] })).toEqual({
      historyEntry: 'h',
      summary: 's',
      memoryAdd: ['f'],
      memoryRemove: [],
      via: 'tool',
    });
    expect(parseConsolidation({ ...base, text: 'Just a recap.', stopReason: 'stop' })).toMatchObject({
      historyEntry: 'Just a recap.',
      summary: 'Just a recap.',
      via: 'text',
    });
  });

  it('rejects failed calls, empty answers and broken arguments', () => {
    expect(() =>
      parseConsolidation({ ...base, text: '', stopReason: 'error', errorMessage: 'HTTP 500' }),
    ).toThrow('HTTP 500');
    expect(() => parseConsolidation({ ...base, text: '  ', stopReason: 'stop' })).toThrow(/neither/);
    const bad = { id: 'c', name: 'save_memory', arguments: '{"summary": 3}' };
    expect(() =>
      parseConsolidation({ ...base, text: '', stopReason: 'tool_calls', toolCalls: [bad] }),
    ).toThrow(/lacked/);
  });
});
