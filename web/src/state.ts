import { signal } from '@preact/signals';

/**
 * App-wide state that is not tied to one page.
 *
 * `auth`: `unknown` until `GET /api/session` answered; any 401 from any call sets `signed-out`, which shows
 * the sign-in screen and closes the live connection; `unreachable` when the gateway did not answer at all
 * (offline, or `wren start` stopped) — the app keeps trying instead of asking for a token. The gateway token itself never lives here (or in any
 * storage): the server keeps the session in an HttpOnly cookie.
 */
export type AuthState = 'unknown' | 'signed-in' | 'signed-out' | 'unreachable';
export const auth = signal<AuthState>('unknown');

export interface Toast {
  id: number;
  text: string;
  tone: 'info' | 'error';
  /** Optional link (a hash route) the toast offers. */
  href?: string;
}

export const toasts = signal<Toast[]>([]);
let toastSeq = 0;

/** Shows a short message in the corner; it goes away by itself after a few seconds. */
export function toast(text: string, tone: Toast['tone'] = 'info', href?: string): void {
  const id = ++toastSeq;
  toasts.value = [...toasts.value.slice(-3), { id, text, tone, ...(href ? { href } : {}) }];
  setTimeout(() => dismissToast(id), tone === 'error' ? 8000 : 5000);
}

export function dismissToast(id: number): void {
  toasts.value = toasts.value.filter((item) => item.id !== id);
}

/** The message of anything thrown, for a toast or an inline error. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
