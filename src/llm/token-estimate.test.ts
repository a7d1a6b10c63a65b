import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import { describe, expect, it } from 'vitest';
import {
  EXACT_LIMIT_CHARS,
  estimateMessageTokens,
  estimateRequestTokens,
  estimateTokens,
  IMAGE_TOKENS,
  MESSAGE_OVERHEAD_TOKENS,
} from './token-estimate.js';

const PARAGRAPH =
  'Wren keeps your notes in Markdown. On 2030-01-15 at 09:00 it reminded you to call Ana about the budget ' +
  '(€1,250.00), then summarised three e-mails, fetched https://example.org/report?id=42 and ran `ls -la ~/docs`. ';

describe('estimateTokens', () => {
  it('counts exactly with cl100k below the sampling limit', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('hello world')).toBe(2);
    expect(estimateTokens(PARAGRAPH)).toBe(countTokens(PARAGRAPH));
  });

  it('treats special-token text as plain text instead of throwing', () => {
    expect(estimateTokens('before <|endoftext|> after')).toBeGreaterThan(3);
  });

  it('samples long strings within 10 % of the exact count', () => {
    const text = Array.from({ length: 900 }, (_, i) => `${i}. ${PARAGRAPH}`).join('\n');
    expect(text.length).toBeGreaterThan(EXACT_LIMIT_CHARS * 4);
    const exact = countTokens(text);
    const estimate = estimateTokens(text);
    expect(Math.abs(estimate - exact) / exact).toBeLessThan(0.1);
  });

  it('handles a 10 MB string with a sane characters-per-token ratio', () => {
    const text = PARAGRAPH.repeat(Math.ceil(10_000_000 / PARAGRAPH.length));
    const estimate = estimateTokens(text);
    const ratio = text.length / estimate;
    expect(ratio).toBeGreaterThan(2);
    expect(ratio).toBeLessThan(8);
    const sample = PARAGRAPH.repeat(20);
    expect(Math.abs(ratio - sample.length / countTokens(sample)) / ratio).toBeLessThan(0.1);
  });
});

describe('estimateMessageTokens', () => {
  it('adds overhead, a fixed cost per image, and tool-call names and arguments', () => {
    expect(estimateMessageTokens({ role: 'user', content: 'hello world' })).toBe(2 + MESSAGE_OVERHEAD_TOKENS);
    const withImage = estimateMessageTokens({
      role: 'user',
      content: [
        { type: 'text', text: 'hello world' },
        { type: 'image', data: 'AAAA', mediaType: 'image/png' },
      ],
    });
    expect(withImage).toBe(2 + MESSAGE_OVERHEAD_TOKENS + IMAGE_TOKENS);
    const args = JSON.stringify({ path: 'notes/2030-01-15.md', content: PARAGRAPH });
    const plain = estimateMessageTokens({ role: 'assistant', content: 'Saving.' });
    const withCall = estimateMessageTokens({
      role: 'assistant',
      content: 'Saving.',
      toolCalls: [{ id: 'c1', name: 'write_file', arguments: args }],
    });
    expect(withCall - plain).toBeGreaterThanOrEqual(countTokens(args));
    const result = estimateMessageTokens({
      role: 'tool',
      toolCallId: 'c1',
      toolName: 'write_file',
      content: PARAGRAPH,
    });
    expect(result).toBeGreaterThan(countTokens(PARAGRAPH));
  });
});

describe('estimateRequestTokens', () => {
  it('sums system blocks, messages and tool schemas', () => {
    const base = { system: [{ text: PARAGRAPH }], messages: [{ role: 'user' as const, content: 'hi' }] };
    const tools = [
      {
        name: 'read_file',
        description: 'Read a UTF-8 text file inside the workspace.',
        parameters: {
          type: 'object',
          properties: { path: { type: 'string', description: 'Relative path' } },
        },
      },
    ];
    const without = estimateRequestTokens(base);
    expect(without).toBeGreaterThan(countTokens(PARAGRAPH) + 1);
    expect(estimateRequestTokens({ ...base, tools })).toBeGreaterThan(without + 20);
  });
});

describe('the JSON ranks file the build writes', () => {
  it('counts exactly like the package module', async () => {
    const { execFileSync } = await import('node:child_process');
    execFileSync(process.execPath, ['scripts/build-ranks.mjs']);
    const { encodingFromRanksFile } = await import('./token-estimate.js');
    const fromJson = encodingFromRanksFile(new URL('../../dist/llm/cl100k_base.ranks.json', import.meta.url));
    const options = { disallowedSpecial: new Set<string>() };
    for (const text of [
      'hello world',
      'Größe 大きさ 尺寸 🚀',
      '  indented\n\tcode();',
      '<|endoftext|> plain',
      '{"a":[1,2]}',
    ]) {
      expect(fromJson.countTokens(text, options), text).toBe(countTokens(text, options));
    }
  });

  it('a missing file throws, so the estimator falls back to the module', async () => {
    const { encodingFromRanksFile } = await import('./token-estimate.js');
    expect(() => encodingFromRanksFile('/nonexistent/ranks.json')).toThrow();
  });

  it('needs no tokenizer package at run time: the two built files count the same on their own', async () => {
    const { execFileSync } = await import('node:child_process');
    const { copyFileSync, mkdirSync, mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    execFileSync(process.execPath, ['scripts/build-ranks.mjs']);
    // A folder with no node_modules above it, as in a production install without gpt-tokenizer.
    const dir = mkdtempSync(join(tmpdir(), 'wren-ranks-'));
    try {
      for (const name of ['cl100k_base.ranks.json', 'gpt-encoding.cjs']) {
        copyFileSync(new URL(`../../dist/llm/${name}`, import.meta.url), join(dir, name));
      }
      const { encodingFromRanksFile } = await import('./token-estimate.js');
      const alone = encodingFromRanksFile(join(dir, 'cl100k_base.ranks.json'));
      const options = { disallowedSpecial: new Set<string>() };
      for (const text of [
        PARAGRAPH,
        'Größe 大きさ 🚀',
        '<|endoftext|> plain',
        ' \u0000\t\n  x',
        'a'.repeat(3_000),
      ]) {
        expect(alone.countTokens(text, options), text).toBe(countTokens(text, options));
      }
      // Ranks without the encoder beside them: an error, so the estimator falls back to the package.
      mkdirSync(join(dir, 'ranks-only'));
      copyFileSync(join(dir, 'cl100k_base.ranks.json'), join(dir, 'ranks-only', 'cl100k_base.ranks.json'));
      expect(() => encodingFromRanksFile(join(dir, 'ranks-only', 'cl100k_base.ranks.json'))).toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
