/*
 * Wren's service worker.
 *
 * - /assets/* (hashed build files): cache first — a hash never changes its content.
 * - Page navigations: network first; offline, the last cached page (the app shell) is served.
 * - /api/* and /ws: never touched, never cached (private data, live connections).
 * - Push: `{title, body, url?, key?}` becomes a notification; clicking it focuses an open Wren tab (which
 *   is told to show `url`) or opens one.
 */

const SHELL_CACHE = 'wren-shell-v1';
const ASSET_CACHE = 'wren-assets-v1';
const SHELL_URL = '/';
const MAX_ASSETS = 60;

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(SHELL_CACHE)
      .then((cache) => cache.addAll([SHELL_URL, '/icon.svg', '/manifest.webmanifest']))
      .catch(() => undefined)
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) =>
        Promise.all(
          keys.filter((key) => key !== SHELL_CACHE && key !== ASSET_CACHE).map((key) => caches.delete(key)),
        ),
      )
      .then(() => self.clients.claim()),
  );
});

/** Keeps the asset cache small: old hashed files of earlier builds go first. */
async function trimAssets() {
  const cache = await caches.open(ASSET_CACHE);
  const keys = await cache.keys();
  await Promise.all(keys.slice(0, Math.max(0, keys.length - MAX_ASSETS)).map((key) => cache.delete(key)));
}

async function assetFirst(request) {
  const cache = await caches.open(ASSET_CACHE);
  const hit = await cache.match(request);
  if (hit) return hit;
  const response = await fetch(request);
  if (response.ok && response.type === 'basic') {
    await cache.put(request, response.clone());
    trimAssets();
  }
  return response;
}

async function pageNetworkFirst(request) {
  try {
    const response = await fetch(request);
    // Only a real page is worth keeping as the offline shell (not a 503 "not built" or an error).
    const type = response.headers.get('content-type') || '';
    if (response.ok && response.type === 'basic' && type.startsWith('text/html')) {
      const cache = await caches.open(SHELL_CACHE);
      await cache.put(SHELL_URL, response.clone());
    }
    return response;
  } catch (error) {
    const cached = await caches.match(SHELL_URL);
    if (cached) return cached;
    throw error;
  }
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.startsWith('/api/') || url.pathname === '/api' || url.pathname === '/ws') return;
  // The one-time sign-in link sets a cookie and redirects: always straight to the network.
  if (url.pathname === '/signin') return;
  if (url.pathname.startsWith('/assets/')) {
    event.respondWith(assetFirst(request));
    return;
  }
  if (request.mode === 'navigate') {
    event.respondWith(pageNetworkFirst(request));
    return;
  }
  // The rest of the shell (icon, manifest): the network, or what was cached at install when offline.
  event.respondWith(
    fetch(request).catch(async (error) => {
      const cached = await caches.match(request);
      if (cached) return cached;
      throw error;
    }),
  );
});

self.addEventListener('push', (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = { body: event.data ? event.data.text() : '' };
  }
  const title = typeof data.title === 'string' && data.title ? data.title : 'Wren';
  const options = {
    body: typeof data.body === 'string' ? data.body : '',
    icon: '/icon.svg',
    badge: '/icon.svg',
    data: { url: typeof data.url === 'string' ? data.url : '/#/feed' },
  };
  // A re-sent delivery carries the same key: it replaces the first notification instead of adding one.
  if (typeof data.key === 'string') options.tag = data.key;
  event.waitUntil(self.registration.showNotification(title, options));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const target = new URL(event.notification.data?.url || '/', self.location.origin);
  if (target.origin !== self.location.origin) return;
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((windows) => {
      const open = windows.find((client) => new URL(client.url).origin === self.location.origin);
      if (open) {
        open.postMessage({ type: 'open', url: target.href });
        return open.focus();
      }
      return self.clients.openWindow(target.href);
    }),
  );
});
