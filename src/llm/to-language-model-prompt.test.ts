import { describe, expect, it } from 'vitest';
import {
  IMAGE_OMITTED_NOTE,
  toLanguageModelPrompt,
  toLanguageModelTools,
} from './to-language-model-prompt.js';
import type { ModelRequest } from './types.js';

const system: ModelRequest['system'] = [
  { text: 'Persona.', cache: true },
  { text: 'Tools guide.', cache: true },
  { text: '' },
  { text: 'Today.' },
];

describe('toLanguageModelPrompt', () => {
  it('keeps system blocks apart with one cache breakpoint for Anthropic', () => {
    const prompt = toLanguageModelPrompt({ system, messages: [] }, { vision: true, anthropicCache: true });
    expect(prompt).toEqual([
      { role: 'system', content: 'Persona.' },
      {
        role: 'system',
        content: 'Tools guide.',
        providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
      },
      { role: 'system', content: 'Today.' },
    ]);
  });

  it('joins system blocks into one message otherwise, and omits an empty system', () => {
    const prompt = toLanguageModelPrompt({ system, messages: [] }, { vision: true, anthropicCache: false });
    expect(prompt).toEqual([{ role: 'system', content: 'Persona.\n\nTools guide.\n\nToday.' }]);
    expect(
      toLanguageModelPrompt({ system: [], messages: [] }, { vision: true, anthropicCache: false }),
    ).toEqual([]);
  });

  it('converts the conversation, grouping consecutive tool results and dropping empty turns', () => {
    const prompt = toLanguageModelPrompt(
      {
        system: [],
        messages: [
          { role: 'user', content: [{ type: 'image', data: 'AAAA', mediaType: 'image/jpeg' }] },
          { role: 'assistant', content: '' },
          {
            role: 'assistant',
            content: '',
            toolCalls: [
              { id: 'a', name: 'exec', arguments: '{"command":"ls"}' },
              { id: 'b', name: 'exec', arguments: '{"command": truncated' },
            ],
          },
          { role: 'tool', toolCallId: 'a', toolName: 'exec', content: 'file.txt' },
          { role: 'tool', toolCallId: 'b', toolName: 'exec', content: 'bad arguments', isError: true },
        ],
      },
      { vision: false, anthropicCache: false },
    );
    expect(prompt).toEqual([
      { role: 'user', content: [{ type: 'text', text: IMAGE_OMITTED_NOTE }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'a', toolName: 'exec', input: { command: 'ls' } },
          { type: 'tool-call', toolCallId: 'b', toolName: 'exec', input: {} },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'a',
            toolName: 'exec',
            output: { type: 'text', value: 'file.txt' },
          },
          {
            type: 'tool-result',
            toolCallId: 'b',
            toolName: 'exec',
            output: { type: 'error-text', value: 'bad arguments' },
          },
        ],
      },
    ]);
  });
});

describe('toLanguageModelTools', () => {
  it('declares function tools without execute, or nothing for an empty list', () => {
    expect(toLanguageModelTools([])).toBeUndefined();
    expect(
      toLanguageModelTools([{ name: 'memo', description: 'Save a memo', parameters: { type: 'object' } }]),
    ).toEqual([
      { type: 'function', name: 'memo', description: 'Save a memo', inputSchema: { type: 'object' } },
    ]);
  });
});
