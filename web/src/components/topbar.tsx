import type { RefObject } from 'preact';
import { pendingCount } from '../approvals';
import type { PageName } from '../router';
import { Icon } from './icons';
import { ConnectionIndicator, NAV_ITEMS, ThemeToggle } from './nav';

/** The bar above the page at phone width: the Menu button (with the approvals count), the page's name. */
export function Topbar({
  page,
  menuOpen,
  menuButton,
  onMenu,
}: {
  page: PageName;
  menuOpen: boolean;
  menuButton: RefObject<HTMLButtonElement>;
  onMenu: () => void;
}) {
  const count = pendingCount.value;
  return (
    <header class="topbar">
      <button
        ref={menuButton}
        type="button"
        class="icon-btn"
        aria-label="Menu"
        aria-expanded={menuOpen}
        aria-controls="sidebar"
        onClick={onMenu}
      >
        <Icon name={menuOpen ? 'close' : 'menu'} size={22} />
        {count > 0 ? (
          <span class="menu-dot" aria-hidden="true">
            {count}
          </span>
        ) : null}
      </button>
      <span class="topbar-title">{NAV_ITEMS.find((item) => item.page === page)?.label}</span>
      <ConnectionIndicator compact />
      <ThemeToggle />
    </header>
  );
}
