/**
 * The signed-in session's key (see the gateway's BrowserSessions): sent with every API call as `X-Wren-Key`
 * and with the WebSocket as the subprotocol `wren-key.<key>`. The session cookie alone opens nothing, because
 * cookies reach every server on this host whatever its port, while this key lives in this origin's storage
 * only. It is not the gateway token (which the app never keeps) and is worthless without the HttpOnly cookie.
 */
const STORAGE = 'wren.sessionKey';
const SHAPE = /^[A-Za-z0-9_-]{20,128}$/;

export function sessionKey(): string | undefined {
  try {
    return localStorage.getItem(STORAGE) ?? undefined;
  } catch {
    return undefined;
  }
}

export function setSessionKey(key: string | undefined): void {
  try {
    if (key && SHAPE.test(key)) localStorage.setItem(STORAGE, key);
    else localStorage.removeItem(STORAGE);
  } catch {
    // Storage disabled: the app asks to sign in again on each load.
  }
}

/**
 * Takes the key a one-time sign-in link delivered in the URL fragment (`/#key=…`, set by the gateway's
 * redirect; a fragment never reaches a server) and removes it from the address bar and history.
 */
export function adoptKeyFromLocation(): void {
  const match = /^#key=([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (!match) return;
  setSessionKey(match[1]);
  history.replaceState(null, '', `${location.pathname}${location.search}`);
}
