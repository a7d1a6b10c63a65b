import { type Dialect, renderMarkdown } from './render-markdown.js';

/** Slack's three control characters; everything else is literal in mrkdwn. */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const SLACK_MRKDWN: Dialect = {
  escape: escapeSlack,
  bold: (inner) => `*${inner}*`,
  italic: (inner) => `_${inner}_`,
  strike: (inner) => `~${inner}~`,
  code: (raw) => `\`${escapeSlack(raw.replace(/`/g, 'ˋ'))}\``,
  pre: (raw) => `\`\`\`\n${escapeSlack(raw)}\n\`\`\``,
  link: (inner, href) => `<${href.replace(/[<>|]/g, encodeURIComponent)}|${inner.replace(/[|]/g, '¦')}>`,
  quote: (inner) =>
    inner
      .split('\n')
      .map((line) => `> ${line}`)
      .join('\n'),
};

/**
 * Markdown to Slack's mrkdwn: `*bold*`, `_italic_`, `~strike~`, `<url|words>`; `<`, `>` and `&` escaped so
 * model text can never form a mention (`<!channel>`, `<@U…>`) or a link of its own.
 */
export function toSlackMrkdwn(markdown: string): string {
  return renderMarkdown(markdown, SLACK_MRKDWN);
}
