import { signal } from '@preact/signals';

/**
 * Hash routing: `#/chat`, `#/chat/<session>`, `#/approvals`, `#/goals/<id>`, `#/memory/<file>` … so the
 * browser's back and forward buttons work and a page can be bookmarked. The hash only ever names a page:
 * nothing secret (no gateway URL, no token) is read from it.
 */
export type PageName =
  | 'chat'
  | 'approvals'
  | 'feed'
  | 'agenda'
  | 'reminders'
  | 'tasks'
  | 'memos'
  | 'goals'
  | 'memory'
  | 'settings';

export const PAGES: readonly PageName[] = [
  'chat',
  'approvals',
  'feed',
  'agenda',
  'reminders',
  'tasks',
  'memos',
  'goals',
  'memory',
  'settings',
];

export interface Route {
  page: PageName;
  /** The part after the page (a session id, a goal id, a memory file name), decoded; '' when none. */
  param: string;
}

export function parseHash(hash: string): Route {
  const [head = '', ...rest] = hash.replace(/^#\/?/, '').split('/');
  const page = (PAGES as readonly string[]).includes(head) ? (head as PageName) : 'chat';
  let param = '';
  try {
    param = decodeURIComponent(rest.join('/'));
  } catch {
    param = '';
  }
  return { page, param: page === head ? param : '' };
}

export const route = signal<Route>(parseHash(location.hash));

export function hrefOf(page: PageName, param?: string): string {
  return param ? `#/${page}/${encodeURIComponent(param)}` : `#/${page}`;
}

window.addEventListener('hashchange', () => {
  route.value = parseHash(location.hash);
});

/** Goes to a page; `replace` swaps the history entry (a new chat that just got its session id). */
export function navigate(page: PageName, param?: string, replace = false): void {
  const href = hrefOf(page, param);
  if (replace) {
    history.replaceState(history.state, '', href);
    route.value = parseHash(href);
  } else if (location.hash !== href) {
    location.hash = href;
  }
}
