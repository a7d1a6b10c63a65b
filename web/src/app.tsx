import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, checkSession, getOnboarding, signOut } from './api';
import { loadApprovals, pendingApprovals, pendingCount } from './approvals';
import { loadSessions, openSession, resetChat } from './chat-store';
import { Loading } from './components/common';
import { Icon } from './components/icons';
import { ConnectionIndicator, MainNav, NAV_ITEMS, ThemeToggle } from './components/nav';
import { OnboardingDialog } from './components/onboarding';
import { SignIn } from './components/sign-in';
import { Toasts } from './components/toasts';
import { connectLive, disconnectLive, liveEpoch, subscribe } from './live';
import { ApprovalsPage } from './pages/approvals-page';
import { ChatPage } from './pages/chat-page';
import { LazyPage, prefetchPages } from './pages/lazy-pages';
import { hrefOf, type PageName, route } from './router';
import { auth, errorText, toast } from './state';
import type { OnboardingPreset } from './types';

function Page({ page, param }: { page: PageName; param: string }) {
  if (page === 'chat') return <ChatPage param={param} />;
  if (page === 'approvals') return <ApprovalsPage />;
  // Keyed by page: each page starts with fresh state.
  return <LazyPage key={page} page={page} param={param} />;
}

/** Skipped in this page load only (nothing is stored): the setup is offered again on the next visit. */
let onboardingSkipped = false;

/**
 * The signed-in app: sidebar (drawer on phones) + the current page. Owns the live connection's lifetime:
 * opened on sign-in, closed on sign-out, and on every reconnect the approvals are re-read (pages re-read
 * their own data through `liveEpoch`).
 */
function Shell() {
  const [menu, setMenu] = useState(false);
  const [presets, setPresets] = useState<OnboardingPreset[] | null>(null);
  const mainRef = useRef<HTMLElement>(null);
  const { page, param } = route.value;

  useEffect(() => {
    connectLive();
    void loadApprovals();
    const prefetch = setTimeout(prefetchPages, 1500);
    void loadSessions();
    if (!onboardingSkipped) {
      getOnboarding()
        .then((answer) => {
          if (answer.needed && answer.presets.length) setPresets(answer.presets);
        })
        .catch(() => {});
    }
    const stops = [
      // A message Wren sends on its own to a conversation that is not open: say so.
      subscribe('message', (message) => {
        if (message.session === openSession.value && route.value.page === 'chat') return;
        toast(message.text.slice(0, 140) || 'New message from Wren', 'info', hrefOf('chat', message.session));
      }),
      subscribe('approval', (request) => {
        if (route.value.page !== 'approvals' && request.sessionId !== openSession.value) {
          toast(`Wren asks to run ${request.tool}`, 'info', hrefOf('approvals'));
        }
      }),
    ];
    return () => {
      clearTimeout(prefetch);
      for (const stop of stops) stop();
      disconnectLive();
    };
  }, []);

  useEffect(() => {
    if (liveEpoch.value > 0) void loadApprovals();
  }, [liveEpoch.value]);

  // Title and focus follow the page (not the chat's session), so screen readers hear the new page.
  const first = useRef(true);
  useEffect(() => {
    setMenu(false);
    if (first.current) {
      first.current = false;
      return;
    }
    if (page !== 'chat') mainRef.current?.focus({ preventScroll: true });
  }, [page]);

  useEffect(() => {
    const count = pendingCount.value;
    const label = NAV_ITEMS.find((item) => item.page === page)?.label ?? 'Wren';
    document.title = count ? `(${count}) ${label} · Wren` : `${label} · Wren`;
  }, [pendingApprovals.value, page]);

  useEffect(() => {
    if (!menu) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setMenu(false);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [menu]);

  const doSignOut = async () => {
    try {
      await signOut();
    } catch (error) {
      toast(errorText(error), 'error');
    }
    auth.value = 'signed-out';
  };

  const count = pendingCount.value;
  return (
    <div class={`app${menu ? ' menu-open' : ''}`}>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <button
          type="button"
          class="icon-btn"
          aria-label="Menu"
          aria-expanded={menu}
          aria-controls="sidebar"
          onClick={() => setMenu(!menu)}
        >
          <Icon name={menu ? 'close' : 'menu'} size={22} />
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
      <aside class="sidebar" id="sidebar">
        <MainNav onNavigate={() => setMenu(false)} onSignOut={doSignOut} />
      </aside>
      {menu ? (
        <button type="button" class="scrim" aria-label="Close menu" onClick={() => setMenu(false)} />
      ) : null}
      <main id="main" ref={mainRef} tabIndex={-1} class={`main page-${page}`}>
        <Page page={page} param={param} />
      </main>
      <Toasts />
      {presets ? (
        <OnboardingDialog
          presets={presets}
          onClose={() => {
            onboardingSkipped = true;
            setPresets(null);
          }}
        />
      ) : null}
    </div>
  );
}

/** How often the app asks again while the gateway cannot be reached. */
const RETRY_MS = 5000;

function askSession(): void {
  checkSession().then(
    (signedIn) => {
      auth.value = signedIn ? 'signed-in' : 'signed-out';
    },
    (error) => {
      // Only an answer of the gateway says "signed out"; no answer at all is being offline.
      if (error instanceof ApiError && error.status !== 0) {
        toast(errorText(error), 'error');
        auth.value = 'signed-out';
      } else auth.value = 'unreachable';
    },
  );
}

/** Shown while the gateway does not answer (offline, or `wren start` stopped); retries on its own. */
function Unreachable() {
  useEffect(() => {
    const timer = setInterval(askSession, RETRY_MS);
    const online = () => askSession();
    window.addEventListener('online', online);
    return () => {
      clearInterval(timer);
      window.removeEventListener('online', online);
    };
  }, []);
  return (
    <main class="signin">
      <div class="signin-card" role="status">
        <img src="/icon.svg" alt="" width="56" height="56" class="signin-mark" />
        <h1>Wren is out of reach</h1>
        <p class="muted">
          This device is offline, or <code>wren start</code> is not running. The app tries again every few
          seconds.
        </p>
        <button type="button" class="btn primary block" onClick={askSession}>
          Try now
        </button>
      </div>
    </main>
  );
}

export function App() {
  const state = auth.value;

  useEffect(askSession, []);

  // Whatever the last person saw must not survive a sign-out.
  useEffect(() => {
    if (state === 'signed-out') {
      resetChat();
      pendingApprovals.value = [];
    }
  }, [state]);

  if (state === 'unknown') {
    return (
      <main class="splash">
        <Loading />
      </main>
    );
  }
  if (state === 'unreachable') return <Unreachable />;
  if (state === 'signed-out') {
    return (
      <>
        <SignIn />
        <Toasts />
      </>
    );
  }
  return <Shell />;
}
