import { pendingCount } from '../approvals';
import { openSession } from '../chat-store';
import { feedUnread } from '../feed-unread';
import { longTime, relativeTime, shortTime } from '../format';
import { liveState, nextDue } from '../live';
import { nextReminder } from '../next-reminder';
import { hrefOf, type PageName, route } from '../router';
import { effectiveTheme, toggleTheme } from '../theme';
import { useTicker } from './common';
import { Icon, type IconName } from './icons';

export const NAV_ITEMS: ReadonlyArray<{ page: PageName; label: string; icon: IconName }> = [
  { page: 'chat', label: 'Chat', icon: 'chat' },
  { page: 'approvals', label: 'Approvals', icon: 'shield' },
  { page: 'feed', label: 'Feed', icon: 'feed' },
  { page: 'agenda', label: 'Agenda', icon: 'calendar' },
  { page: 'reminders', label: 'Reminders', icon: 'clock' },
  { page: 'tasks', label: 'Tasks', icon: 'tasks' },
  { page: 'memos', label: 'Memos', icon: 'memo' },
  { page: 'goals', label: 'Goals', icon: 'goal' },
  { page: 'memory', label: 'Memory', icon: 'memory' },
  { page: 'settings', label: 'Settings', icon: 'settings' },
];

const LIVE_TEXT = {
  connecting: 'Connecting…',
  open: 'Live',
  reconnecting: 'Reconnecting…',
  offline: 'Offline',
} as const;

/** The connection dot and word: is the app receiving live events right now. */
export function ConnectionIndicator({ compact = false }: { compact?: boolean }) {
  const state = liveState.value;
  return (
    <span class={`conn conn-${state}`} role="status" title={`Live updates: ${LIVE_TEXT[state]}`}>
      <span class="conn-dot" aria-hidden="true" />
      <span class={compact ? 'visually-hidden' : ''}>{LIVE_TEXT[state]}</span>
    </span>
  );
}

export function ThemeToggle() {
  const dark = effectiveTheme.value === 'dark';
  return (
    <button
      type="button"
      class="icon-btn"
      aria-label="Toggle theme"
      title={dark ? 'Switch to light theme' : 'Switch to dark theme'}
      onClick={toggleTheme}
    >
      <Icon name={dark ? 'sun' : 'moon'} size={18} />
    </button>
  );
}

/**
 * What is due next, as a link to the reminders: the next reminder by name ("Next reminder: stretch · 11:15
 * PM"), else when the scheduler next runs something of its own (a job or check-in).
 */
function NextDue() {
  const now = useTicker(30_000);
  const at = nextDue.value;
  const reminder = nextReminder.value;
  if (reminder?.nextAt !== undefined) {
    const when = shortTime(reminder.nextAt, now);
    return (
      <a
        class="next-due"
        href={hrefOf('reminders')}
        title={`Next reminder: ${reminder.text} — ${longTime(reminder.nextAt)}`}
      >
        <Icon name="clock" size={14} />
        <span class="next-due-text">
          Next reminder: <span class="next-due-name">{reminder.text}</span> · {when}{' '}
          <span class="muted">({relativeTime(reminder.nextAt, now)})</span>
        </span>
      </a>
    );
  }
  if (at === null) return null;
  return (
    <a class="next-due" href={hrefOf('reminders')} title={`Next scheduled run: ${longTime(at)}`}>
      <Icon name="clock" size={14} />
      <span class="next-due-text">
        Next scheduled run: {shortTime(at, now)} <span class="muted">({relativeTime(at, now)})</span>
      </span>
    </a>
  );
}

/** The main navigation: a sidebar on wide screens, a drawer behind the Menu button on phones. */
export function MainNav({ onNavigate, onSignOut }: { onNavigate: () => void; onSignOut: () => void }) {
  const current = route.value.page;
  const count = pendingCount.value;
  const unread = feedUnread.value;
  return (
    <>
      <div class="brand">
        <img src="/icon.svg" alt="" width="28" height="28" />
        <span>Wren</span>
      </div>
      <nav aria-label="Main" class="main-nav">
        <ul>
          {NAV_ITEMS.map((item) => (
            <li key={item.page}>
              <a
                href={
                  item.page === 'chat' ? hrefOf('chat', openSession.value ?? undefined) : hrefOf(item.page)
                }
                class="nav-link"
                aria-current={current === item.page ? 'page' : undefined}
                onClick={onNavigate}
              >
                <Icon name={item.icon} />
                <span class="nav-label">{item.label}</span>
                {item.page === 'approvals' && count > 0 ? (
                  <>
                    <span class="nav-count" aria-hidden="true">
                      {count}
                    </span>
                    <span class="visually-hidden">, {count} pending</span>
                  </>
                ) : null}
                {item.page === 'feed' && unread > 0 ? (
                  <>
                    <span class="nav-count" aria-hidden="true">
                      {unread > 99 ? '99+' : unread}
                    </span>
                    <span class="visually-hidden">, {unread} new</span>
                  </>
                ) : null}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <div class="sidebar-foot">
        <NextDue />
        <div class="sidebar-row">
          <ConnectionIndicator />
          <span class="spacer" />
          <ThemeToggle />
          <button type="button" class="icon-btn" aria-label="Sign out" title="Sign out" onClick={onSignOut}>
            <Icon name="logout" size={18} />
          </button>
        </div>
      </div>
    </>
  );
}
