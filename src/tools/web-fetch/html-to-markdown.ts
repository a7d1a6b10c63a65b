import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';

/** A page turned into Markdown. */
export interface MarkdownPage {
  title?: string;
  markdown: string;
  /** Whether Readability found an article (otherwise the whole body was converted). */
  article: boolean;
}

function turndown(): TurndownService {
  const service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '_',
  });
  service.remove(['script', 'style', 'noscript', 'iframe', 'template', 'svg', 'canvas', 'form', 'button']);
  // Inline images cost tokens and say little: keep the alt text only.
  service.addRule('image-alt', {
    filter: 'img',
    replacement: (_content, node) => {
      const alt = (node as { getAttribute(name: string): string | null }).getAttribute('alt')?.trim();
      return alt ? `[image: ${alt}]` : '';
    },
  });
  return service;
}

/** Collapses the blank-line runs and trailing spaces turndown leaves behind. */
function tidy(markdown: string): string {
  return markdown
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

type ParsedDocument = ReturnType<typeof parseHTML>['document'];

/** Makes link and image addresses absolute against the page URL (dropping ones that cannot be resolved). */
function absolutize(document: ParsedDocument, url: string): void {
  for (const element of document.querySelectorAll('a[href], img[src]')) {
    const attribute = element.tagName === 'A' ? 'href' : 'src';
    const value = element.getAttribute(attribute);
    if (!value) continue;
    try {
      element.setAttribute(attribute, new URL(value, url).href);
    } catch {
      element.removeAttribute(attribute);
    }
  }
}

/**
 * Drops what is never shown (scripts, styles, inline SVG, templates, comments) before parsing: on real pages
 * these are often most of the bytes, and parsing is the costly step.
 */
export function stripInvisible(html: string): string {
  // One pass with indexOf, so hostile markup (thousands of unclosed <script> tags) stays linear.
  // ASCII-only lowering keeps every index aligned with `html` (toLowerCase may change lengths).
  const lower = html.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
  const opener = /<!--|<(script|style|svg|noscript|template)\b/g;
  const kept: string[] = [];
  let from = 0;
  for (let match = opener.exec(lower); match; match = opener.exec(lower)) {
    kept.push(html.slice(from, match.index));
    const closer = match[1] ? `</${match[1]}` : '-->';
    const close = lower.indexOf(closer, opener.lastIndex);
    if (close < 0) return kept.join('');
    const end = match[1] ? lower.indexOf('>', close) : close + 2;
    if (end < 0) return kept.join('');
    from = end + 1;
    opener.lastIndex = from;
  }
  kept.push(html.slice(from));
  return kept.join('');
}

/**
 * Converts an HTML document to readable Markdown: Readability extracts the main article when it can (dropping
 * navigation, ads and footers); otherwise the body without scripts and styles is converted. Relative links are
 * made absolute against `url`. Never throws on malformed HTML (the parser is forgiving); pure apart from CPU.
 */
export function htmlToMarkdown(raw: string, url: string): MarkdownPage {
  const html = stripInvisible(raw);
  const { document } = parseHTML(html);
  absolutize(document, url);
  const pageTitle = document.querySelector('title')?.textContent?.trim() || undefined;
  const service = turndown();
  let parsed: ReturnType<Readability['parse']> = null;
  try {
    parsed = new Readability(document as never, { charThreshold: 200, disableJSONLD: true }).parse();
  } catch {
    parsed = null;
  }
  if (parsed?.content && (parsed.textContent?.trim().length ?? 0) > 0) {
    const title = parsed.title?.trim() || pageTitle;
    return { ...(title ? { title } : {}), markdown: tidy(service.turndown(parsed.content)), article: true };
  }
  // Readability gave up and may have pruned the document: convert a fresh parse of the whole body.
  const fresh = parseHTML(html).document;
  absolutize(fresh, url);
  const body = fresh.querySelector('body') ?? fresh.documentElement;
  const markdown = body ? tidy(service.turndown(body.toString())) : '';
  return { ...(pageTitle ? { title: pageTitle } : {}), markdown, article: false };
}
