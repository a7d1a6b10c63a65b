import { useEffect, useRef, useState } from 'preact/hooks';

/** Distance from the bottom (px) within which the view counts as "at the bottom" and stays pinned. */
const PIN_SLACK = 48;

/**
 * Scroll contract of a growing log: while the owner is at the bottom, growing content (a streaming reply,
 * a new message) keeps the view pinned there; once they scroll up it stays where they put it and `atBottom`
 * turns false (the page offers "Jump to latest"). A ResizeObserver on the content catches every growth,
 * including images and code blocks that lay out late. `pin` re-pins (a different conversation opened).
 */
export function useStickToBottom() {
  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const [atBottom, setAtBottom] = useState(true);

  useEffect(() => {
    const box = scroller.current;
    const inner = content.current;
    if (!box || !inner) return;
    const observer = new ResizeObserver(() => {
      if (pinned.current) box.scrollTop = box.scrollHeight;
    });
    observer.observe(inner);
    return () => observer.disconnect();
  }, []);

  const onScroll = () => {
    const box = scroller.current;
    if (!box) return;
    const bottom = box.scrollHeight - box.scrollTop - box.clientHeight <= PIN_SLACK;
    pinned.current = bottom;
    if (bottom !== atBottom) setAtBottom(bottom);
  };

  const jump = () => {
    const box = scroller.current;
    if (!box) return;
    pinned.current = true;
    setAtBottom(true);
    box.scrollTo({ top: box.scrollHeight, behavior: 'smooth' });
  };

  const pin = () => {
    pinned.current = true;
  };

  return { scroller, content, atBottom, onScroll, jump, pin };
}
