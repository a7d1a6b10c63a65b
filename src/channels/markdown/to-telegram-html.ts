import { type Dialect, renderMarkdown } from './render-markdown.js';

/** Escapes text for Telegram's HTML parse mode (which knows only &lt; &gt; &amp; &quot;). */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const TELEGRAM_HTML: Dialect = {
  escape: escapeHtml,
  bold: (inner) => `<b>${inner}</b>`,
  italic: (inner) => `<i>${inner}</i>`,
  strike: (inner) => `<s>${inner}</s>`,
  code: (raw) => `<code>${escapeHtml(raw)}</code>`,
  pre: (raw, lang) =>
    lang
      ? `<pre><code class="language-${lang}">${escapeHtml(raw)}</code></pre>`
      : `<pre>${escapeHtml(raw)}</pre>`,
  link: (inner, href) => `<a href="${escapeHtml(href)}">${inner}</a>`,
  quote: (inner) => `<blockquote>${inner}</blockquote>`,
};

/** Markdown to the HTML subset Telegram renders (bold, italic, strike, code, pre, links, blockquotes). */
export function toTelegramHtml(markdown: string): string {
  return renderMarkdown(markdown, TELEGRAM_HTML);
}
