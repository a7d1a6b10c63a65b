import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../llm/types.js';
import { INTERRUPTED_RESULT, repairToolPairs } from './repair-tool-pairs.js';

const call = (id: string) => ({ id, name: 'exec', arguments: '{}' });
const result = (id: string): ChatMessage => ({ role: 'tool', toolCallId: id, toolName: 'exec', content: id });

describe('repairToolPairs', () => {
  it('leaves a well-formed history as it is', () => {
    const history: ChatMessage[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: '', toolCalls: [call('a'), call('b')] },
      result('b'),
      result('a'),
      { role: 'assistant', content: 'done' },
    ];
    expect(repairToolPairs(history)).toEqual(history);
  });

  it('answers calls a killed turn left open, after the results that did arrive, even at the end', () => {
    const repaired = repairToolPairs([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: '', toolCalls: [call('a'), call('b')] },
      result('a'),
      { role: 'user', content: 'again' },
      { role: 'assistant', content: '', toolCalls: [call('c')] },
    ]);
    expect(
      repaired.map((message) => (message.role === 'tool' ? `tool:${message.toolCallId}` : message.role)),
    ).toEqual(['user', 'assistant', 'tool:a', 'tool:b', 'user', 'assistant', 'tool:c']);
    expect(repaired[3]).toMatchObject({ isError: true, content: INTERRUPTED_RESULT });
  });

  it('drops results whose call is not right before them, and duplicates', () => {
    const repaired = repairToolPairs([
      result('stray'),
      { role: 'user', content: 'go' },
      { role: 'assistant', content: '', toolCalls: [call('a')] },
      result('a'),
      result('a'),
    ]);
    expect(repaired).toEqual([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: '', toolCalls: [call('a')] },
      result('a'),
    ]);
  });
});
