import { describe, expect, it } from 'vitest';
import { splitMessage } from './split-message.js';

describe('splitMessage', () => {
  it('keeps a short text whole', () => {
    expect(splitMessage('hello', 100)).toEqual(['hello']);
  });

  it('cuts at paragraph breaks and never exceeds the limit', () => {
    const paragraphs = Array.from({ length: 30 }, (_, index) => `Paragraph ${index} ${'word '.repeat(20)}`);
    const pieces = splitMessage(paragraphs.join('\n\n'), 400);
    expect(pieces.length).toBeGreaterThan(3);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(400);
      expect(piece).toMatch(/^Paragraph \d+/);
    }
    expect(pieces.join(' ').replace(/\s+/g, ' ')).toBe(paragraphs.join(' ').replace(/\s+/g, ' '));
  });

  it('ends a piece before a code block rather than inside it', () => {
    const text = `${'intro '.repeat(30)}\n\n\`\`\`ts\n${'const x = 1;\n'.repeat(10)}\`\`\`\nafter`;
    const pieces = splitMessage(text, 220);
    expect(pieces[0]).not.toContain('```');
    expect(pieces[1]!.startsWith('```ts')).toBe(true);
  });

  it('closes and reopens a code block longer than the limit, with its language', () => {
    const code = Array.from({ length: 60 }, (_, index) => `line_${index}();`).join('\n');
    const pieces = splitMessage(`\`\`\`python\n${code}\n\`\`\``, 200);
    expect(pieces.length).toBeGreaterThan(2);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(200);
      expect(piece.startsWith('```python')).toBe(true);
      expect(piece.trimEnd().endsWith('```')).toBe(true);
    }
    const lines = pieces.flatMap((piece) => piece.split('\n').filter((line) => line.startsWith('line_')));
    expect(lines.join('\n')).toBe(code);
  });

  it('cuts a text without any break at the limit', () => {
    const pieces = splitMessage('x'.repeat(1000), 300);
    expect(pieces.map((piece) => piece.length)).toEqual([300, 300, 300, 100]);
  });
});
