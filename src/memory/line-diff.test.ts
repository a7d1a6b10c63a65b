import { describe, expect, it } from 'vitest';
import { unifiedDiff } from './line-diff.js';

const labels = { from: 'a', to: 'b' };

describe('unifiedDiff', () => {
  it('is empty for equal texts', () => {
    expect(unifiedDiff('x\ny\n', 'x\ny\n', labels)).toBe('');
  });

  it('shows a changed line with its context, numbered as diff -u does', () => {
    const before = ['1', '2', '3', '4', '5', '6', '7', '8', '9'].join('\n');
    const after = ['1', '2', '3', '4', 'five', '6', '7', '8', '9'].join('\n');
    expect(unifiedDiff(before, after, labels)).toBe(
      ['--- a', '+++ b', '@@ -2,7 +2,7 @@', ' 2', ' 3', ' 4', '-5', '+five', ' 6', ' 7', ' 8', ''].join('\n'),
    );
  });

  it('diffs from nothing, to nothing, and keeps far-apart changes in separate hunks', () => {
    expect(unifiedDiff('', 'a\nb\n', labels)).toBe('--- a\n+++ b\n@@ -0,0 +1,2 @@\n+a\n+b\n');
    expect(unifiedDiff('a\n', '', labels)).toBe('--- a\n+++ b\n@@ -1,1 +0,0 @@\n-a\n');
    const lines = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`);
    const changed = lines.map((line, index) => (index === 1 || index === 27 ? `${line}!` : line));
    const diff = unifiedDiff(lines.join('\n'), changed.join('\n'), labels);
    expect(diff.match(/^@@ .*@@$/gm)).toEqual(['@@ -1,5 +1,5 @@', '@@ -25,6 +25,6 @@']);
  });

  it('finds the longest common part: an insertion between kept lines is only an insertion', () => {
    const diff = unifiedDiff('- tea\n- cats\n- Lisbon\n', '- tea\n- coffee\n- cats\n- Lisbon\n', labels, 0);
    expect(diff).toBe('--- a\n+++ b\n@@ -1,0 +2,1 @@\n+- coffee\n');
  });
});
