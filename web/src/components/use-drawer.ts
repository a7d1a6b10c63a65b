import { useEffect, useRef, useState } from 'preact/hooks';

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select, textarea';

/**
 * A panel that slides over the page on narrow screens (the main menu, the conversation list), opened by a
 * toggle button. Keyboard contract: opening moves focus into the panel (its current link, else its first
 * control); while open, Escape closes it; closing returns focus to the toggle when focus was in the panel
 * or nowhere, so it never stays on a hidden element. The panel closes by itself once `wideQuery` matches,
 * where it is a plain column and the toggle is hidden.
 */
export function useDrawer(wideQuery: string) {
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLElement>(null);
  const shown = useRef(false);

  useEffect(() => {
    const box = panel.current;
    // Only a change moves focus: the first render (closed) must leave it where the page put it.
    if (!box || shown.current === open) return;
    shown.current = open;
    if (open) {
      const target =
        box.querySelector<HTMLElement>('[aria-current="page"]') ?? box.querySelector<HTMLElement>(FOCUSABLE);
      target?.focus();
      return;
    }
    const active = document.activeElement;
    if (!active || active === document.body || box.contains(active)) toggle.current?.focus();
  }, [open]);

  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setOpen(false);
    };
    const wide = window.matchMedia(wideQuery);
    const onWide = () => {
      if (wide.matches) setOpen(false);
    };
    window.addEventListener('keydown', onKey);
    wide.addEventListener('change', onWide);
    return () => {
      window.removeEventListener('keydown', onKey);
      wide.removeEventListener('change', onWide);
    };
  }, [open, wideQuery]);

  return { open, setOpen, toggle, panel };
}
