import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, checkSession, getOnboarding, getSettings, signOut } from './api';
import { loadApprovals, pendingApprovals, pendingCount } from './approvals';
import { loadSessions, openSession, resetChat } from './chat-store';
import { Loading } from './components/common';
import { MainNav, NAV_ITEMS } from './components/nav';
import { OnboardingDialog } from './components/onboarding';
import { SignIn } from './components/sign-in';
import { Toasts } from './components/toasts';
import { Topbar } from './components/topbar';
import { useDrawer } from './components/use-drawer';
import { trackFeedUnread } from './feed-unread';
import { setOwnerZone } from './format';
import { connectLive, disconnectLive, liveEpoch, subscribe } from './live';
import { trackNextReminder } from './next-reminder';
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
 * What signing in starts: the live connection (closed again on sign-out), approvals, conversations, the
 * other pages' code, and the first-run setup when no model is configured. Returns the setup's presets while
 * it is to be shown, and how to close it. On every reconnect the approvals are re-read (pages re-read their
 * own data through `liveEpoch`).
 */
function useSignedIn(): [OnboardingPreset[] | null, () => void] {
  const [presets, setPresets] = useState<OnboardingPreset[] | null>(null);

  useEffect(() => {
    connectLive();
    void loadApprovals();
    const prefetch = setTimeout(prefetchPages, 1500);
    void loadSessions();
    // Times are shown in the owner's configured zone (agent.timezone), whatever this device's zone.
    getSettings().then(
      (settings) => setOwnerZone(settings.timezone),
      () => {},
    );
    if (!onboardingSkipped) {
      getOnboarding()
        .then((answer) => {
          if (answer.needed && answer.presets.length) setPresets(answer.presets);
        })
        .catch(() => {});
    }
    const stops = [
      trackFeedUnread(),
      trackNextReminder(),
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

  const close = () => {
    onboardingSkipped = true;
    setPresets(null);
  };
  return [presets, close];
}

/**
 * The signed-in app: sidebar (a drawer behind the Menu button on phones) + the current page. While the
 * drawer is open the page behind it is inert, so Tab stays in the menu.
 */
function Shell() {
  const menu = useDrawer('(min-width: 641px)');
  const [presets, closeOnboarding] = useSignedIn();
  const mainRef = useRef<HTMLElement>(null);
  const { page, param } = route.value;

  // Title and focus follow the page (not the chat's session), so screen readers hear the new page. Focus
  // moves to <main> unless the page put it somewhere inside (the chat's message box).
  const first = useRef(true);
  useEffect(() => {
    menu.setOpen(false);
    if (first.current) {
      first.current = false;
      return;
    }
    const main = mainRef.current;
    if (main && !main.contains(document.activeElement)) main.focus({ preventScroll: true });
  }, [page]);

  useEffect(() => {
    const count = pendingCount.value;
    const label = NAV_ITEMS.find((item) => item.page === page)?.label ?? 'Wren';
    document.title = count ? `(${count}) ${label} · Wren` : `${label} · Wren`;
  }, [pendingApprovals.value, page]);

  const doSignOut = async () => {
    try {
      await signOut();
    } catch (error) {
      toast(errorText(error), 'error');
    }
    auth.value = 'signed-out';
  };

  return (
    <div class={`app${menu.open ? ' menu-open' : ''}`}>
      {/* A button, not a link to "#main": routes live in the hash, so following "#main" would open the chat. */}
      <button type="button" class="skip-link" onClick={() => mainRef.current?.focus()}>
        Skip to content
      </button>
      <Topbar
        page={page}
        menuOpen={menu.open}
        menuButton={menu.toggle}
        onMenu={() => menu.setOpen(!menu.open)}
      />
      <aside class="sidebar" id="sidebar" ref={menu.panel}>
        <MainNav onNavigate={() => menu.setOpen(false)} onSignOut={doSignOut} />
      </aside>
      {menu.open ? (
        <button type="button" class="scrim" aria-label="Close menu" onClick={() => menu.setOpen(false)} />
      ) : null}
      <main id="main" ref={mainRef} tabIndex={-1} class={`main page-${page}`} inert={menu.open}>
        <Page page={page} param={param} />
      </main>
      <Toasts />
      {presets ? <OnboardingDialog presets={presets} onClose={closeOnboarding} /> : null}
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
