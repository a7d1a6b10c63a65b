import { addPushSubscription, pushKey, removePushSubscription } from './api';

/**
 * Web push for this browser. Needs the service worker (production build) and a secure context: browsers
 * offer push only on https or on localhost. The subscription is sent to the gateway, which encrypts each
 * notification for it with the home's VAPID keys.
 */

/** Why push cannot work here, or null when it can. */
export function pushUnavailable(): string | null {
  if (!window.isSecureContext) {
    return 'Notifications need a secure connection: open Wren over https, or on this computer at localhost.';
  }
  if (!('serviceWorker' in navigator) || !('PushManager' in window) || !('Notification' in window)) {
    return 'This browser does not support web push notifications.';
  }
  if (!import.meta.env.PROD)
    return 'Notifications work in the built app (npm run build), not the dev server.';
  return null;
}

function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const base64 = base64url
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(base64url.length / 4) * 4, '=');
  const raw = atob(base64);
  const bytes = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}

async function registration(): Promise<ServiceWorkerRegistration> {
  return navigator.serviceWorker.ready;
}

export async function currentSubscription(): Promise<PushSubscription | null> {
  if (pushUnavailable()) return null;
  const existing = await navigator.serviceWorker.getRegistration();
  return existing ? existing.pushManager.getSubscription() : null;
}

/** Asks for permission, subscribes with the gateway's key and registers the subscription there. */
export async function enablePush(): Promise<void> {
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') {
    throw new Error(
      permission === 'denied'
        ? 'Notifications are blocked for this site. Allow them in the browser’s site settings, then try again.'
        : 'Notifications were not allowed.',
    );
  }
  const { publicKey } = await pushKey();
  const reg = await registration();
  const key = keyBytes(publicKey);
  let subscription = await reg.pushManager.getSubscription();
  // Subscribed with another key (the home's VAPID keys were replaced): that subscription can never be used.
  const current = subscription?.options.applicationServerKey;
  if (subscription && current && !sameBytes(new Uint8Array(current), key)) {
    await subscription.unsubscribe();
    subscription = null;
  }
  if (!subscription) {
    subscription = await reg.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: key,
    });
  }
  await addPushSubscription(subscription.toJSON());
}

export async function disablePush(): Promise<void> {
  const subscription = await currentSubscription();
  if (!subscription) return;
  const { endpoint } = subscription;
  await subscription.unsubscribe();
  await removePushSubscription(endpoint);
}
