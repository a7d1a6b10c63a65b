import './styles.css';
import './theme';
import { render } from 'preact';
import { App } from './app';
import { navigate, parseHash } from './router';
import { adoptKeyFromLocation } from './session-key';

// Before anything asks the gateway: a one-time sign-in link leaves the session key in the fragment.
adoptKeyFromLocation();
render(<App />, document.getElementById('app')!);

/**
 * The service worker (web/public/sw.js): offline shell and push notifications. Only in the built app —
 * the dev server's modules must never be cached. A notification click on an open tab arrives as a
 * message naming the page to show.
 */
if (import.meta.env.PROD && 'serviceWorker' in navigator) {
  window.addEventListener('load', () => {
    navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch((error: unknown) => {
      console.warn('service worker not registered', error);
    });
  });
  navigator.serviceWorker.addEventListener(
    'message',
    (event: MessageEvent<{ type?: string; url?: string }>) => {
      if (event.data?.type !== 'open' || !event.data.url) return;
      const url = new URL(event.data.url, location.href);
      if (url.origin !== location.origin) return;
      const { page, param } = parseHash(url.hash);
      navigate(page, param || undefined);
    },
  );
}
