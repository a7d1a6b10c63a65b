/**
 * Plain text from the server (an error, a hint, a reason) in which `backticks` mark commands, as Wren's
 * messages write them for the terminal: each such span is shown as <code>, without the backticks. Nothing
 * else is interpreted (no Markdown, no HTML: it is all text nodes). An unpaired backtick stays as it is.
 */
export function CodeText({ text }: { text: string }) {
  const parts = text.split(/`([^`\n]+)`/);
  if (parts.length === 1) return <>{text}</>;
  return (
    <>
      {parts.map((part, index) =>
        // Odd indexes are the captured spans between a pair of backticks.
        index % 2 === 1 ? <code key={index}>{part}</code> : part,
      )}
    </>
  );
}
