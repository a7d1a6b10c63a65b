import { Lexer, type Token, type Tokens } from 'marked';

/**
 * How one chat platform spells formatting. `escape` is applied to every piece of text the model wrote;
 * the other functions wrap already-escaped content (except `code`/`pre`, which get raw text to escape in
 * their own way).
 */
export interface Dialect {
  escape(text: string): string;
  bold(inner: string): string;
  italic(inner: string): string;
  strike(inner: string): string;
  code(raw: string): string;
  pre(raw: string, lang: string | undefined): string;
  /** `href` is an http(s)/mailto link already checked. */
  link(inner: string, href: string): string;
  quote(inner: string): string;
}

/**
 * Markdown (as models write it) in a platform's dialect: parsing is marked's; headings become bold lines,
 * lists bullets (task items ☑/☐), tables preformatted text, raw HTML plain text, and links other than
 * http(s)/mailto only their words.
 */
export function renderMarkdown(markdown: string, dialect: Dialect): string {
  return blocks(new Lexer({ gfm: true }).lex(markdown), dialect).trim();
}

function blocks(tokens: Token[], d: Dialect): string {
  const out: string[] = [];
  for (const token of tokens) {
    const text = block(token, d);
    if (text !== undefined) out.push(text);
  }
  return out.join('\n\n');
}

function block(token: Token, d: Dialect): string | undefined {
  switch (token.type) {
    case 'space':
    case 'def':
    case 'checkbox':
      return undefined;
    case 'heading':
      return d.bold(inline((token as Tokens.Heading).tokens, d));
    case 'paragraph':
      return inline((token as Tokens.Paragraph).tokens, d);
    case 'code': {
      const code = token as Tokens.Code;
      return d.pre(code.text, code.lang?.match(/^[\w+#-]+/)?.[0]);
    }
    case 'blockquote':
      return d.quote(blocks((token as Tokens.Blockquote).tokens, d));
    case 'list':
      return list(token as Tokens.List, 0, d);
    case 'table':
      return d.pre(table(token as Tokens.Table), undefined);
    case 'hr':
      return '———';
    case 'text': {
      const text = token as Tokens.Text;
      return text.tokens ? inline(text.tokens, d) : d.escape(decode(text.text));
    }
    default:
      return d.escape(token.raw.trim());
  }
}

function list(token: Tokens.List, depth: number, d: Dialect): string {
  const start = typeof token.start === 'number' ? token.start : 1;
  return token.items
    .map((item, index) => {
      const mark = item.task ? (item.checked ? '☑' : '☐') : token.ordered ? `${start + index}.` : '•';
      const parts = item.tokens.map((child) =>
        child.type === 'list' ? `\n${list(child as Tokens.List, depth + 1, d)}` : (block(child, d) ?? ''),
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

function inline(tokens: Token[] | undefined, d: Dialect): string {
  if (!tokens) return '';
  return tokens
    .map((token) => {
      switch (token.type) {
        case 'strong':
          return d.bold(inline((token as Tokens.Strong).tokens, d));
        case 'em':
          return d.italic(inline((token as Tokens.Em).tokens, d));
        case 'del':
          return d.strike(inline((token as Tokens.Del).tokens, d));
        case 'codespan':
          return d.code(decode((token as Tokens.Codespan).text));
        case 'br':
          return '\n';
        case 'checkbox':
          return '';
        case 'link': {
          const link = token as Tokens.Link;
          const words = inline(link.tokens, d);
          return /^(https?|mailto):/i.test(link.href) ? d.link(words, link.href) : words;
        }
        case 'image': {
          const image = token as Tokens.Image;
          return d.escape(`${image.text || 'image'} (${image.href})`);
        }
        case 'text': {
          const text = token as Tokens.Text;
          return text.tokens ? inline(text.tokens, d) : d.escape(decode(text.text));
        }
        case 'escape':
          return d.escape((token as Tokens.Escape).text);
        default:
          return d.escape(token.raw);
      }
    })
    .join('');
}

/** marked hands text with its own entity escapes (`&amp;`, `&#39;`); undo them before the dialect escapes. */
function decode(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}
