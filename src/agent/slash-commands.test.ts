import { describe, expect, it } from 'vitest';
import { helpText, type RuntimeCommand } from './slash-commands.js';

const command = (description: string): RuntimeCommand => ({ description, run: async () => '' });

describe('helpText', () => {
  it('is plain text for every face: code spans lose their backticks, the words stay', () => {
    const text = helpText(
      {
        subagents: command('list background subagents; `/subagents cancel ID` stops one'),
        forget: command('remove facts containing <text> from MEMORY.md (asks first)'),
        odd: command('a ``double`` span and a lone ` backtick'),
      },
      'telegram',
    );
    expect(text).toContain('/subagents  list background subagents; /subagents cancel ID stops one');
    expect(text).toContain('remove facts containing <text> from MEMORY.md');
    expect(text).toContain('a double span and a lone ` backtick');
    expect(text.match(/`/g)).toHaveLength(1);
  });

  it('lists the face’s own commands only on that face, and no plugged commands when none are given', () => {
    expect(helpText({}, 'cli')).toContain('/exit');
    expect(helpText({}, 'telegram')).not.toContain('/exit');
    expect(helpText({}, 'telegram').split('\n')).toEqual([
      'Commands:',
      '  /new   start a fresh session (the old one stays stored)',
      '  /stop  cancel the running reply',
      '  /help  this list',
    ]);
  });
});
