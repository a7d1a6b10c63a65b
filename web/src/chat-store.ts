import { batch, signal } from '@preact/signals';
import { ApiError, listSessions, sessionMessages } from './api';
import { type AssistantItem, type ChatItem, nextKey, toItems } from './chat-items';
import { subscribe } from './live';
import { navigate } from './router';
import { errorText } from './state';
import type { SessionRecord } from './types';

/**
 * The conversation state of the Chat page, kept outside the component so a reply keeps streaming while
 * the owner looks at another page, and so a new chat can be renamed to its session id mid-stream without a
 * reload. Sending and streaming live in chat-send.ts.
 *
 * Contract:
 * - `openSession` is what the page shows (null = a new chat not sent yet); `items` its finished messages.
 * - `live` is the one turn in flight (at most one at a time). Its assistant item is replaced (never mutated)
 *   at most once per animation frame, so only the streaming message re-renders and markdown is parsed at
 *   most ~60 times a second however fast deltas arrive.
 * - When the turn ends its item is appended to `items` if that conversation is still open; otherwise it is
 *   dropped (the server stored it; opening the conversation loads it).
 * - A turn runs on the server whoever watches it: a page that opens a conversation with a turn in flight
 *   picks it up (`resumed`); the stored messages of that turn are then shown from the live item instead
 *   (`withResumed`), and when it ends the conversation is re-read from the server.
 */

export interface LiveTurn {
  /** Null until the server names the session of a new chat (`turn-start`/`done`). */
  session: string | null;
  item: AssistantItem;
  controller: AbortController;
  /** The session the request runs in, known from the start (the app names a new chat itself): for Stop. */
  target: string;
  /** A turn this page did not start (it was open in a tab that reloaded): when it started, and its message. */
  resumed?: { startedAt: number; message: string };
}

/**
 * The items to show with a resumed turn's live item after them: those from before the turn started, and
 * the turn's own message (the stored one, with its images, when it is already stored).
 */
export function withResumed(list: ChatItem[], resumed: NonNullable<LiveTurn['resumed']>): ChatItem[] {
  const cut = list.findIndex((item) => item.at >= resumed.startedAt);
  if (cut < 0 && !resumed.message) return list;
  const before = cut < 0 ? list : list.slice(0, cut);
  const stored = cut < 0 ? undefined : list[cut];
  const user: ChatItem =
    stored?.kind === 'user'
      ? stored
      : {
          kind: 'user',
          key: `resumed-${resumed.startedAt}`,
          text: resumed.message,
          images: [],
          at: resumed.startedAt,
        };
  return [...before, user];
}

export const sessions = signal<SessionRecord[]>([]);
export const sessionsError = signal<string | null>(null);
export const openSession = signal<string | null>(null);
export const items = signal<ChatItem[]>([]);
/** The seq of the first message shown; above 1 means older ones were consolidated into memory. */
export const firstSeq = signal(1);
export const loading = signal(false);
export const loadError = signal<string | null>(null);
export const live = signal<LiveTurn | null>(null);
/** Sessions with a turn running on another channel (Telegram, the terminal …), from `activity` frames. */
export const busySessions = signal<ReadonlySet<string>>(new Set());

/** When the last local turn ended: the `activity` end of our own turn must not reload over it. */
let lastLocalEnd = 0;

// --- Loading ------------------------------------------------------------------------------------------------

export async function loadSessions(): Promise<void> {
  try {
    sessions.value = await listSessions();
    sessionsError.value = null;
  } catch (error) {
    sessionsError.value = errorText(error);
  }
}

let sessionsTimer: ReturnType<typeof setTimeout> | undefined;
function loadSessionsSoon(): void {
  clearTimeout(sessionsTimer);
  sessionsTimer = setTimeout(loadSessions, 800);
}

let loadController: AbortController | undefined;

async function loadMessages(id: string, quiet = false): Promise<void> {
  loadController?.abort();
  const controller = new AbortController();
  loadController = controller;
  if (!quiet) loading.value = true;
  try {
    const messages = await sessionMessages(id, controller.signal);
    if (openSession.value !== id || controller.signal.aborted) return;
    batch(() => {
      items.value = toItems(messages);
      firstSeq.value = messages[0]?.seq ?? 1;
      loadError.value = null;
    });
  } catch (error) {
    if (controller.signal.aborted) return;
    loadError.value =
      error instanceof ApiError && error.status === 404
        ? 'This conversation no longer exists.'
        : errorText(error);
  } finally {
    if (loadController === controller) loading.value = false;
  }
}

/** Re-reads conversation `id` if it is open, without the loading row; resolves when it is on screen. */
export function reloadMessages(id: string): Promise<void> {
  return openSession.value === id ? loadMessages(id, true) : Promise.resolve();
}

/** Shows a conversation (null: a new one). Showing the one already open does nothing. */
export function showSession(id: string | null): void {
  if (id === openSession.value && (id === null || items.value.length > 0 || loading.value)) return;
  batch(() => {
    openSession.value = id;
    items.value = [];
    firstSeq.value = 1;
    loadError.value = null;
  });
  if (id) void loadMessages(id);
  else loadController?.abort();
}

/** Re-reads the open conversation (after a reconnect, or a turn on another channel). */
export function reloadOpenSession(): void {
  const id = openSession.value;
  if (id && live.value?.session !== id) void loadMessages(id, true);
}

export function newChat(): void {
  showSession(null);
  navigate('chat');
}

/**
 * Ends the live turn with its finished item: the item joins `items` if its conversation is still open and
 * it has anything to show.
 */
export function endLiveTurn(done: AssistantItem): void {
  const turn = live.value;
  if (!turn) return;
  const open = openSession.value === turn.session;
  batch(() => {
    const empty = !done.segments.length && !done.error && !done.notice && !done.stopped;
    const shown = turn.resumed ? withResumed(items.value, turn.resumed) : items.value;
    if (open && !empty) items.value = [...shown, done];
    else if (open) items.value = shown;
    live.value = null;
  });
  lastLocalEnd = Date.now();
  // A resumed turn's stored messages were hidden behind its live item: the server's copy is the whole turn.
  // How it ended when that is not stored (stopped here, failed) stays shown after the server's copy.
  const session = turn.session;
  if (open && turn.resumed && session) {
    const ending = done.stopped || done.error ? { ...done, segments: [] } : undefined;
    void loadMessages(session, true).then(() => {
      if (ending && openSession.value === session) items.value = [...items.value, ending];
    });
  }
  void loadSessions();
}

/** Drops the live turn without keeping its item (this page stops watching; the turn goes on on the server). */
export function dropLiveTurn(): void {
  live.value = null;
}

/** Clears everything on sign-out, so the next person to sign in sees nothing of this session. */
export function resetChat(): void {
  live.value?.controller.abort();
  batch(() => {
    live.value = null;
    sessions.value = [];
    openSession.value = null;
    items.value = [];
  });
}

// --- Live frames --------------------------------------------------------------------------------------------

subscribe('activity', (event) => {
  const busy = new Set(busySessions.value);
  if (event.phase === 'start') busy.add(event.session);
  else busy.delete(event.session);
  busySessions.value = busy;
  if (event.phase !== 'end') return;
  loadSessionsSoon();
  const ours = live.value?.session === event.session || Date.now() - lastLocalEnd < 3000;
  if (event.session === openSession.value && !ours) reloadOpenSession();
});

subscribe('message', (message) => {
  if (message.session !== openSession.value) return;
  const item: AssistantItem = {
    kind: 'assistant',
    key: nextKey('m'),
    segments: message.text ? [{ type: 'text', text: message.text }] : [],
    at: Date.now(),
    attachments: message.attachments,
    unprompted: true,
  };
  items.value = [...items.value, item];
});
