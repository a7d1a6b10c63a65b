import { describe, expect, it } from 'vitest';
import { toSlackMrkdwn } from './to-slack-mrkdwn.js';

describe('toSlackMrkdwn', () => {
  it("maps emphasis, links and code to Slack's mrkdwn", () => {
    expect(toSlackMrkdwn('# Plan\n\n**bold** _it_ ~~old~~ `x` [site](https://example.com)')).toBe(
      '*Plan*\n\n*bold* _it_ ~old~ `x` <https://example.com|site>',
    );
    expect(toSlackMrkdwn('```js\nif (a < b) {}\n```')).toBe('```\nif (a &lt; b) {}\n```');
    expect(toSlackMrkdwn('> quoted\n> twice')).toBe('> quoted\n> twice');
  });

  it('escapes text so the model can never ping everyone or plant a link', () => {
    const out = toSlackMrkdwn('<!channel> hey <@U123> & <https://evil.test|click>');
    expect(out).not.toContain('<!channel>');
    expect(out).not.toContain('<@U123>');
    expect(out).toContain('&lt;!channel&gt;');
    expect(out).toContain('&amp;');
  });
});
