import { batch, signal } from '@preact/signals';
import { ApiError, listSessions, sessionMessages } from './api';
import { dropApproval, upsertApproval } from './approvals';
import { type ChatEvent, type ChatRequest, streamChat } from './chat-stream';
import { subscribe } from './live';
import { navigate, route } from './router';
import { errorText } from './state';
import type { Attachment, SessionRecord, StoredMessage } from './types';

/**
 * The conversation state of the Chat page, kept outside the component so a reply keeps streaming while
 * the owner looks at another page, and so a new chat can be renamed to its session id mid-stream without a
 * reload.
 *
 * Contract:
 * - `openSession` is what the page shows (null = a new chat not sent yet); `items` its finished messages.
 * - `live` is the one turn in flight (at most one at a time). Its assistant item is replaced (never mutated)
 *   at most once per animation frame, so only the streaming message re-renders and markdown is parsed at
 *   most ~60 times a second however fast deltas arrive.
 * - When the turn ends its item is appended to `items` if that conversation is still open; otherwise it is
 *   dropped (the server stored it; opening the conversation loads it).
 */

export interface TextSegment {
  type: 'text';
  text: string;
}

export interface ToolSegment {
  type: 'tool';
  id: string;
  name: string;
  hint?: string;
  args?: string;
  result?: string;
  isError?: boolean;
  running: boolean;
}

export type Segment = TextSegment | ToolSegment;

export interface UserItem {
  kind: 'user';
  key: string;
  text: string;
  /** data: URLs of images sent with the message. */
  images: string[];
  at: number;
}

export interface AssistantItem {
  kind: 'assistant';
  key: string;
  segments: Segment[];
  at: number;
  notice?: string;
  error?: string;
  stopped?: boolean;
  attachments?: Attachment[];
  /** Set for messages Wren sent on its own (reminders, the message tool). */
  unprompted?: boolean;
}

export type ChatItem = UserItem | AssistantItem;

export interface LiveTurn {
  /** Null until the server names the session of a new chat (`turn-start`/`done`). */
  session: string | null;
  item: AssistantItem;
  controller: AbortController;
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

let keySeq = 0;
const nextKey = (prefix: string) => `${prefix}-${++keySeq}`;

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

function textOf(content: StoredMessage['message'] & { role: 'user' }): { text: string; images: string[] } {
  if (typeof content.content === 'string') return { text: content.content, images: [] };
  const text: string[] = [];
  const images: string[] = [];
  for (const part of content.content) {
    if (part.type === 'text') text.push(part.text);
    else images.push(`data:${part.mediaType};base64,${part.data}`);
  }
  return { text: text.join('\n'), images };
}

/** Stored messages → chat items: one assistant item per turn, its text and tool calls in order. */
export function toItems(messages: StoredMessage[]): ChatItem[] {
  const out: ChatItem[] = [];
  let turn: AssistantItem | undefined;
  const current = (at: number): AssistantItem => {
    if (!turn) {
      turn = { kind: 'assistant', key: nextKey('a'), segments: [], at };
      out.push(turn);
    }
    turn.at = at;
    return turn;
  };
  for (const stored of messages) {
    const message = stored.message;
    if (message.role === 'user') {
      turn = undefined;
      out.push({ kind: 'user', key: `u${stored.seq}`, ...textOf(message), at: stored.createdAt });
    } else if (message.role === 'assistant') {
      const item = current(stored.createdAt);
      if (message.content) item.segments.push({ type: 'text', text: message.content });
      for (const call of message.toolCalls ?? []) {
        item.segments.push({
          type: 'tool',
          id: call.id,
          name: call.name,
          args: call.arguments,
          running: false,
        });
      }
    } else {
      const item = current(stored.createdAt);
      const call = item.segments.find(
        (segment): segment is ToolSegment => segment.type === 'tool' && segment.id === message.toolCallId,
      );
      if (call) {
        call.result = message.content;
        call.isError = message.isError ?? false;
      } else {
        item.segments.push({
          type: 'tool',
          id: message.toolCallId,
          name: message.toolName,
          result: message.content,
          isError: message.isError ?? false,
          running: false,
        });
      }
    }
  }
  return out;
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

// --- Sending ------------------------------------------------------------------------------------------------

let pendingText = '';
let frame = 0;
/** When the last local turn ended: the `activity` end of our own turn must not reload over it. */
let lastLocalEnd = 0;

function updateLive(change: (item: AssistantItem) => AssistantItem): void {
  const turn = live.value;
  if (turn) live.value = { ...turn, item: change(turn.item) };
}

function appendText(item: AssistantItem, text: string): AssistantItem {
  const segments = item.segments.slice();
  const last = segments[segments.length - 1];
  if (last?.type === 'text') segments[segments.length - 1] = { type: 'text', text: last.text + text };
  else segments.push({ type: 'text', text });
  return { ...item, segments };
}

function flushText(): void {
  if (frame) cancelAnimationFrame(frame);
  frame = 0;
  if (!pendingText) return;
  const text = pendingText;
  pendingText = '';
  updateLive((item) => appendText(item, text));
}

function queueText(text: string): void {
  pendingText += text;
  if (!frame) frame = requestAnimationFrame(flushText);
}

/** The server named the session of a new chat: adopt it, and rename the route without a history entry. */
function adoptSession(id: string): void {
  const turn = live.value;
  if (!turn || turn.session) return;
  live.value = { ...turn, session: id };
  if (openSession.value === null) {
    openSession.value = id;
    if (route.value.page === 'chat' && !route.value.param) navigate('chat', id, true);
  }
}

function onEvent(event: ChatEvent): void {
  switch (event.event) {
    case 'turn-start':
      adoptSession(event.data.session);
      break;
    case 'delta':
      queueText(event.data.text);
      break;
    case 'tool': {
      flushText();
      const data = event.data;
      if (data.phase === 'start') {
        updateLive((item) => ({
          ...item,
          segments: [
            ...item.segments,
            {
              type: 'tool',
              id: data.id,
              name: data.name,
              hint: data.hint,
              ...(data.args !== undefined ? { args: data.args } : {}),
              running: true,
            },
          ],
        }));
      } else {
        updateLive((item) => ({
          ...item,
          segments: item.segments.map((segment) =>
            segment.type === 'tool' && segment.id === data.id
              ? { ...segment, running: false, result: data.preview, isError: data.isError }
              : segment,
          ),
        }));
      }
      break;
    }
    case 'approval':
      adoptSession(event.data.sessionId);
      upsertApproval(event.data);
      break;
    case 'approval-resolved':
      dropApproval(event.data.id);
      break;
    case 'done':
    case 'error': {
      flushText();
      if (event.data.session) adoptSession(event.data.session);
      const { reply, notice } = event.data;
      updateLive((item) => {
        const streamed = item.segments.some((segment) => segment.type === 'text' && segment.text.trim());
        if (event.event === 'error') return { ...item, error: reply || 'The turn failed.' };
        if (!streamed && reply) return appendText({ ...item, ...(notice ? { notice } : {}) }, reply);
        return notice ? { ...item, notice } : item;
      });
      break;
    }
    default:
      break;
  }
}

function finishTurn(change?: (item: AssistantItem) => AssistantItem): void {
  flushText();
  const turn = live.value;
  if (!turn) return;
  const item = change ? change(turn.item) : turn.item;
  const done: AssistantItem = {
    ...item,
    at: Date.now(),
    segments: item.segments.map((segment) =>
      segment.type === 'tool' && segment.running ? { ...segment, running: false } : segment,
    ),
  };
  batch(() => {
    const empty = !done.segments.length && !done.error && !done.notice && !done.stopped;
    if (openSession.value === turn.session && !empty) items.value = [...items.value, done];
    live.value = null;
  });
  lastLocalEnd = Date.now();
  void loadSessions();
}

export interface Outgoing {
  text: string;
  images: Array<{ data: string; mediaType: string }>;
}

/** Sends one message in the open conversation; `/new` starts a new one instead. */
export async function sendMessage(outgoing: Outgoing): Promise<void> {
  const text = outgoing.text.trim();
  if (text === '/new' && !outgoing.images.length) {
    newChat();
    return;
  }
  if (live.value || (!text && !outgoing.images.length)) return;
  const session = openSession.value;
  const controller = new AbortController();
  const now = Date.now();
  batch(() => {
    items.value = [
      ...items.value,
      {
        kind: 'user',
        key: nextKey('u'),
        text,
        images: outgoing.images.map((image) => `data:${image.mediaType};base64,${image.data}`),
        at: now,
      },
    ];
    live.value = {
      session,
      item: { kind: 'assistant', key: nextKey('a'), segments: [], at: now },
      controller,
    };
  });
  const body: ChatRequest = {
    // The API needs some text; an image on its own gets a neutral prompt.
    message: text || 'What is in this image?',
    ...(session ? { session } : {}),
    ...(outgoing.images.length ? { images: outgoing.images } : {}),
  };
  try {
    await streamChat(body, onEvent, controller.signal);
    finishTurn();
  } catch (error) {
    if (controller.signal.aborted) finishTurn((item) => ({ ...item, stopped: true }));
    else finishTurn((item) => ({ ...item, error: errorText(error) }));
  }
}

/** Stops the turn: closing the request makes the server cancel it. */
export function stopTurn(): void {
  live.value?.controller.abort();
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
