import { useMemo } from 'preact/hooks';
import { copyText } from '../clipboard';
import { highlighterReady, renderMarkdown } from '../markdown';

/**
 * Rendered, sanitised Markdown. The HTML comes from renderMarkdown (DOMPurify), so inserting it is safe.
 * The code blocks' Copy buttons are part of that HTML; one delegated click handler serves them all.
 */
export function MarkdownView({ text, streaming = false }: { text: string; streaming?: boolean }) {
  // Reading highlighterReady subscribes: the block re-renders in colour once highlight.js has loaded.
  const ready = highlighterReady.value;
  const html = useMemo(() => renderMarkdown(text, streaming), [text, streaming, ready]);
  const onClick = async (event: MouseEvent) => {
    const button = (event.target as HTMLElement).closest('button.copy-code');
    if (!button) return;
    const code = button.closest('.code-block')?.querySelector('code')?.textContent ?? '';
    const ok = await copyText(code);
    button.textContent = ok ? 'Copied' : 'Copy failed';
    setTimeout(() => {
      button.textContent = 'Copy';
    }, 1500);
  };
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: delegation for the real <button>s inside the HTML
    // biome-ignore lint/a11y/useKeyWithClickEvents: those buttons are keyboard-activated as buttons
    <div
      class="markdown"
      onClick={onClick}
      // Safe: sanitised by DOMPurify in renderMarkdown.
      dangerouslySetInnerHTML={{ __html: html }}
    />
  );
}
