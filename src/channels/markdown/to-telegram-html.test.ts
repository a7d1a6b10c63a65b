import { describe, expect, it } from 'vitest';
import { toTelegramHtml } from './to-telegram-html.js';

describe('toTelegramHtml', () => {
  it('maps emphasis, code, links and headings to the tags Telegram knows', () => {
    expect(toTelegramHtml('# Plan\n\n**bold** _it_ ~~old~~ `x<y` [site](https://example.com)')).toBe(
      '<b>Plan</b>\n\n<b>bold</b> <i>it</i> <s>old</s> <code>x&lt;y</code> <a href="https://example.com">site</a>',
    );
  });

  it('keeps code blocks with their language and escapes their content', () => {
    expect(toTelegramHtml('```ts\nif (a < b && c) {}\n```')).toBe(
      '<pre><code class="language-ts">if (a &lt; b &amp;&amp; c) {}</code></pre>',
    );
  });

  it('shows raw HTML and unsafe links as text, never as markup', () => {
    const html = toTelegramHtml('<script>alert(1)</script>\n\n[x](javascript:alert(1)) 5 > 3 & "q"');
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('href="javascript');
    expect(html).toContain('&lt;script&gt;');
    expect(html).toContain('5 &gt; 3 &amp; &quot;q&quot;');
  });

  it('renders lists, task items, quotes and tables', () => {
    expect(toTelegramHtml('- a\n- b\n  1. c\n\n- [x] done')).toContain('• a\n• b');
    expect(toTelegramHtml('- [x] done\n- [ ] todo')).toBe('☑ done\n☐ todo');
    expect(toTelegramHtml('> quoted')).toBe('<blockquote>quoted</blockquote>');
    expect(toTelegramHtml('| a | bb |\n|---|---|\n| 1 | 2 |')).toBe('<pre>a | bb\n--+---\n1 | 2 </pre>');
  });
});
