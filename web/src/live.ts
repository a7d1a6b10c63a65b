import { signal } from '@preact/signals';
import { checkSession } from './api';
import { sessionKey } from './session-key';
import { auth } from './state';
import type { ActivityEvent, ApprovalRequest, ApprovalResolved, LiveMessage } from './types';

/**
 * The live connection: one WebSocket to `/ws` on this origin (the session cookie authenticates it). Server
 * frames are `{type, data}` carrying the same events as `/api/events`.
 *
 * Contract for pages: `subscribe(type, fn)` for frames; `liveEpoch` changes after every reconnect (not the
 * first connect), so a page that shows server state re-fetches it in an effect depending on `liveEpoch` —
 * whatever happened while the socket was down is then on screen.
 */
export interface LiveFrames {
  ready: { nextDue: number | null };
  approval: ApprovalRequest;
  'approval-resolved': ApprovalResolved;
  'next-due': { at: number | null };
  feed: { id: number; title: string };
  message: LiveMessage;
  activity: ActivityEvent;
}

export type LiveState = 'connecting' | 'open' | 'reconnecting' | 'offline';

export const liveState = signal<LiveState>('connecting');
/** When the scheduler next wakes (ms since the epoch), or null when nothing is scheduled. */
export const nextDue = signal<number | null>(null);
export const liveEpoch = signal(0);

type Listener<K extends keyof LiveFrames> = (data: LiveFrames[K]) => void;
const listeners = new Map<string, Set<(data: never) => void>>();

export function subscribe<K extends keyof LiveFrames>(type: K, fn: Listener<K>): () => void {
  const set = listeners.get(type) ?? new Set();
  listeners.set(type, set);
  set.add(fn as (data: never) => void);
  return () => set.delete(fn as (data: never) => void);
}

/** Delivers a frame to the listeners of its type (also used for the chat stream's approval events). */
export function emit<K extends keyof LiveFrames>(type: K, data: LiveFrames[K]): void {
  for (const fn of listeners.get(type) ?? []) {
    try {
      (fn as Listener<K>)(data);
    } catch (error) {
      console.error('live listener failed', error);
    }
  }
}

let socket: WebSocket | undefined;
let retryTimer: ReturnType<typeof setTimeout> | undefined;
let attempts = 0;
let everOpened = false;
let wanted = false;

function url(): string {
  return `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/ws`;
}

function open(): void {
  clearTimeout(retryTimer);
  if (!wanted || socket) return;
  liveState.value = everOpened ? 'reconnecting' : 'connecting';
  const key = sessionKey();
  // Browsers cannot put headers on an upgrade: the key travels as a subprotocol (the server answers `wren`).
  const ws = new WebSocket(url(), key ? ['wren', `wren-key.${key}`] : ['wren']);
  socket = ws;
  ws.onopen = () => {
    liveState.value = 'open';
    attempts = 0;
    if (everOpened) liveEpoch.value++;
    everOpened = true;
  };
  ws.onmessage = (event) => {
    let frame: { type?: string; data?: unknown };
    try {
      frame = JSON.parse(String(event.data)) as typeof frame;
    } catch {
      return;
    }
    if (!frame.type) return;
    if (frame.type === 'ready') {
      nextDue.value = (frame.data as LiveFrames['ready'] | undefined)?.nextDue ?? null;
    } else if (frame.type === 'next-due') {
      nextDue.value = (frame.data as LiveFrames['next-due']).at ?? null;
    }
    emit(frame.type as keyof LiveFrames, frame.data as never);
  };
  ws.onclose = () => {
    if (socket !== ws) return;
    socket = undefined;
    if (!wanted) return;
    liveState.value = navigator.onLine ? 'reconnecting' : 'offline';
    scheduleRetry();
  };
}

/** Backoff 1 s, 2 s, 4 s … 30 s with jitter; a lost session (401) ends the retries and signs out. */
function scheduleRetry(): void {
  const delay = Math.min(30_000, 1000 * 2 ** Math.min(attempts, 5)) * (0.8 + Math.random() * 0.4);
  attempts++;
  retryTimer = setTimeout(async () => {
    if (!wanted) return;
    try {
      if (!(await checkSession())) {
        auth.value = 'signed-out';
        return;
      }
    } catch {
      // The gateway is unreachable: try the socket anyway; its failure schedules the next retry.
    }
    open();
  }, delay);
}

/** Opens the connection (after sign-in). */
export function connectLive(): void {
  wanted = true;
  open();
}

/** Closes it (sign-out). */
export function disconnectLive(): void {
  wanted = false;
  clearTimeout(retryTimer);
  const ws = socket;
  socket = undefined;
  ws?.close();
  everOpened = false;
  attempts = 0;
  liveState.value = 'connecting';
  nextDue.value = null;
}

// A laptop waking up or a phone coming back online should not wait out the backoff.
function retryNow(): void {
  if (wanted && !socket) {
    attempts = 0;
    open();
  }
}
window.addEventListener('online', retryNow);
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') retryNow();
});
window.addEventListener('offline', () => {
  if (wanted && !socket) liveState.value = 'offline';
});
