import { Lexer, type Token, type Tokens } from 'marked';

/** Escapes text for Telegram's HTML parse mode (which knows only &lt; &gt; &amp; &quot;). */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * Markdown (as models write it) to the HTML subset Telegram renders: bold, italic, strike, code, pre with a
 * language, links, blockquotes. Headings become bold lines, lists bullets, tables preformatted text; raw
 * HTML is shown as text. Parsing is marked's; only the mapping to Telegram's tags is here.
 */
export function toTelegramHtml(markdown: string): string {
  return blocks(new Lexer({ gfm: true }).lex(markdown)).trim();
}

function blocks(tokens: Token[]): string {
  const out: string[] = [];
  for (const token of tokens) {
    const text = block(token);
    if (text !== undefined) out.push(text);
  }
  return out.join('\n\n');
}

function block(token: Token): string | undefined {
  switch (token.type) {
    case 'space':
    case 'def':
    case 'checkbox':
      return undefined;
    case 'heading':
      return `<b>${inline((token as Tokens.Heading).tokens)}</b>`;
    case 'paragraph':
      return inline((token as Tokens.Paragraph).tokens);
    case 'code': {
      const code = token as Tokens.Code;
      const lang = code.lang?.match(/^[\w+#-]+/)?.[0];
      return lang
        ? `<pre><code class="language-${lang}">${escapeHtml(code.text)}</code></pre>`
        : `<pre>${escapeHtml(code.text)}</pre>`;
    }
    case 'blockquote':
      return `<blockquote>${blocks((token as Tokens.Blockquote).tokens)}</blockquote>`;
    case 'list':
      return list(token as Tokens.List, 0);
    case 'table':
      return `<pre>${escapeHtml(table(token as Tokens.Table))}</pre>`;
    case 'hr':
      return '———';
    case 'text': {
      const text = token as Tokens.Text;
      return text.tokens ? inline(text.tokens) : escapeHtml(text.text);
    }
    default:
      return escapeHtml(token.raw.trim());
  }
}

function list(token: Tokens.List, depth: number): string {
  const start = typeof token.start === 'number' ? token.start : 1;
  return token.items
    .map((item, index) => {
      const mark = item.task ? (item.checked ? '☑' : '☐') : token.ordered ? `${start + index}.` : '•';
      const parts = item.tokens.map((child) =>
        child.type === 'list' ? `\n${list(child as Tokens.List, depth + 1)}` : (block(child) ?? ''),
      );
      return `${'  '.repeat(depth)}${mark} ${parts.join('').trim()}`;
    })
    .join('\n');
}

function table(token: Tokens.Table): string {
  const rows = [
    token.header.map((cell) => cell.text),
    ...token.rows.map((row) => row.map((cell) => cell.text)),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  const line = (row: string[]) => row.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ');
  return [
    line(rows[0]!),
    widths.map((width) => '-'.repeat(width)).join('-+-'),
    ...rows.slice(1).map(line),
  ].join('\n');
}

function inline(tokens: Token[] | undefined): string {
  if (!tokens) return '';
  return tokens
    .map((token) => {
      switch (token.type) {
        case 'strong':
          return `<b>${inline((token as Tokens.Strong).tokens)}</b>`;
        case 'em':
          return `<i>${inline((token as Tokens.Em).tokens)}</i>`;
        case 'del':
          return `<s>${inline((token as Tokens.Del).tokens)}</s>`;
        case 'codespan':
          return `<code>${escapeHtml((token as Tokens.Codespan).text)}</code>`;
        case 'br':
          return '\n';
        case 'checkbox':
          return '';
        case 'link': {
          const link = token as Tokens.Link;
          return /^(https?|mailto|tg):/i.test(link.href)
            ? `<a href="${escapeHtml(link.href)}">${inline(link.tokens)}</a>`
            : inline(link.tokens);
        }
        case 'image': {
          const image = token as Tokens.Image;
          return escapeHtml(`${image.text || 'image'} (${image.href})`);
        }
        case 'text': {
          const text = token as Tokens.Text;
          return text.tokens ? inline(text.tokens) : escapeHtml(decode(text.text));
        }
        case 'escape':
          return escapeHtml((token as Tokens.Escape).text);
        default:
          return escapeHtml(token.raw);
      }
    })
    .join('');
}

/** marked hands text with its own entity escapes (`&amp;`, `&#39;`); undo them before escaping ours. */
function decode(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}
