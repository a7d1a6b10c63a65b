/** A unified diff as lines: additions, removals and hunk headers each marked by class (text only, no HTML). */
export function DiffView({ text }: { text: string }) {
  if (!text) return <p class="muted small">No change from the version before.</p>;
  const lines = text.replace(/\n$/, '').split('\n');
  return (
    <pre class="diff-view">
      {lines.map((line, index) => {
        const kind = line.startsWith('@@')
          ? 'diff-hunk'
          : line.startsWith('+++') || line.startsWith('---')
            ? 'diff-file'
            : line.startsWith('+')
              ? 'diff-add'
              : line.startsWith('-')
                ? 'diff-del'
                : '';
        return (
          <span key={`${index}-${line}`} class={kind}>
            {line}
            {'\n'}
          </span>
        );
      })}
    </pre>
  );
}
