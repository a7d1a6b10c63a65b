import { batch } from '@preact/signals';
import { dropApproval, upsertApproval } from './approvals';
import { type AssistantItem, nextKey, type Segment } from './chat-items';
import { dropLiveTurn, endLiveTurn, items, live, newChat, openSession, reloadMessages } from './chat-store';
import {
  type ChatEvent,
  type ChatRequest,
  stopRemoteTurn,
  streamChat,
  type TurnSnapshot,
  watchTurn,
} from './chat-stream';
import { navigate, route } from './router';
import { errorText } from './state';

/**
 * Sending a message and streaming the reply into `live` (chat-store.ts). Deltas are gathered and applied
 * once per animation frame; a tool event, the end of the turn or a stop first applies what is gathered, so
 * text and tool calls keep their order.
 *
 * Turns run on the server whoever watches (`keepRunning`): closing or reloading the tab only stops
 * watching, and opening a conversation with a turn in flight picks it up (`resumeTurn`). Stop asks the
 * server to stop the turn (`DELETE /api/sessions/:id/turn`) and then stops watching.
 */

/** Resolves once the gateway accepted the live turn (a Stop before that waits for it). */
let accepted: Promise<void> = Promise.resolve();
/** The controllers of turns whose Stop was asked. */
const stopAsked = new WeakSet<AbortController>();
/** A resume request waiting for its first event (at most one). */
let resuming: AbortController | undefined;

let pendingText = '';
let frame = 0;

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

function onTool(data: Extract<ChatEvent, { event: 'tool' }>['data']): void {
  flushText();
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
}

/** `done`/`error`: the reply the server sends at the end shows only when nothing was streamed. */
function onEnd(event: Extract<ChatEvent, { event: 'done' | 'error' }>): void {
  flushText();
  if (event.data.session) adoptSession(event.data.session);
  const { reply, notice } = event.data;
  updateLive((item) => {
    const streamed = item.segments.some((segment) => segment.type === 'text' && segment.text.trim());
    if (event.event === 'error') return { ...item, error: reply || 'The turn failed.' };
    // A watched turn that was stopped (here, or in another tab) ends as a stop, not as an answer.
    if (event.data.state === 'stopped') return { ...item, stopped: true };
    if (!streamed && reply) return appendText({ ...item, ...(notice ? { notice } : {}) }, reply);
    return notice ? { ...item, notice } : item;
  });
}

function onEvent(event: ChatEvent): void {
  switch (event.event) {
    case 'turn-start':
      adoptSession(event.data.session);
      break;
    case 'delta':
      queueText(event.data.text);
      break;
    case 'tool':
      onTool(event.data);
      break;
    case 'approval':
      adoptSession(event.data.sessionId);
      upsertApproval(event.data);
      break;
    case 'approval-resolved':
      dropApproval(event.data.id);
      break;
    case 'done':
    case 'error':
      onEnd(event);
      break;
    default:
      break;
  }
}

function finishTurn(change?: (item: AssistantItem) => AssistantItem): void {
  flushText();
  const turn = live.value;
  if (!turn) return;
  const item = change ? change(turn.item) : turn.item;
  endLiveTurn({
    ...item,
    at: Date.now(),
    segments: item.segments.map((segment) =>
      segment.type === 'tool' && segment.running ? { ...segment, running: false } : segment,
    ),
  });
}

export interface Outgoing {
  text: string;
  images: Array<{ data: string; mediaType: string }>;
}

/** Sends one message in the open conversation; `/new` starts a new one instead. */
/** The controller of the live turn (a function: a signal's value must not be narrowed across awaits). */
const watching = () => live.value?.controller;

/** Whether the live turn runs in `session` and the page shows it (the server named it: `turn-start`). */
const adopted = (session: string) => live.value?.session === session && openSession.value === session;

/** A new session id made here, so the turn can be stopped before the server names it (UUID v4 form). */
function newSessionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export async function sendMessage(outgoing: Outgoing): Promise<void> {
  const text = outgoing.text.trim();
  if (text === '/new' && !outgoing.images.length) {
    newChat();
    return;
  }
  if (live.value || (!text && !outgoing.images.length)) return;
  resuming?.abort();
  const session = openSession.value;
  const target = session ?? newSessionId();
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
      target,
    };
  });
  const body: ChatRequest = {
    // The API needs some text; an image on its own gets a neutral prompt.
    message: text || 'What is in this image?',
    session: target,
    keepRunning: true,
    ...(outgoing.images.length ? { images: outgoing.images } : {}),
  };
  const stream = { opened: false };
  let open = () => {};
  accepted = new Promise((resolve) => {
    open = resolve;
  });
  try {
    await streamChat(body, onEvent, controller.signal, () => {
      stream.opened = true;
      open();
    });
    if (stopAsked.has(controller)) finishTurn((item) => ({ ...item, stopped: true }));
    else finishTurn();
  } catch (error) {
    open();
    if (controller.signal.aborted || stopAsked.has(controller)) {
      finishTurn((item) => ({ ...item, stopped: true }));
    } else if (stream.opened && watching() === controller && adopted(target)) {
      // The connection broke (a phone suspended the tab, the network went away) but the turn goes on on
      // the server: show what is stored and pick the turn up again.
      flushText();
      dropLiveTurn();
      await reloadMessages(target);
      await resumeTurn(target);
    } else {
      finishTurn((item) => ({ ...item, error: errorText(error) }));
    }
  }
}

/** Stops the turn: the server is asked to stop it (once it accepted it), then this page stops watching. */
export function stopTurn(): void {
  const turn = live.value;
  if (!turn || stopAsked.has(turn.controller)) return;
  stopAsked.add(turn.controller);
  void (async () => {
    try {
      await accepted;
      await stopRemoteTurn(turn.target);
    } catch {
      // Offline: the page stops watching; the turn is there when the conversation is opened again.
    } finally {
      turn.controller.abort();
    }
  })();
}

function itemOf(snapshot: TurnSnapshot): AssistantItem {
  const segments: Segment[] = snapshot.segments.map((segment) =>
    segment.type === 'text'
      ? segment
      : {
          type: 'tool',
          id: segment.id,
          name: segment.name,
          hint: segment.hint,
          ...(segment.args !== undefined ? { args: segment.args } : {}),
          ...(segment.preview !== undefined ? { result: segment.preview } : {}),
          ...(segment.isError !== undefined ? { isError: segment.isError } : {}),
          running: segment.running,
        },
  );
  // The server keeps the newest text of a very long reply: mark where the older text was left out.
  const first = segments[0];
  if (snapshot.droppedChars > 0 && first?.type === 'text') segments[0] = { ...first, text: `…${first.text}` };
  return { kind: 'assistant', key: nextKey('a'), segments, at: snapshot.startedAt };
}

/**
 * Picks up the turn in flight of `session` (the page was reloaded, or reopened, while Wren answered): its
 * text, tool calls and approvals so far, then the rest live. Does nothing when no turn runs there, or when
 * this page already shows a turn.
 */
export async function resumeTurn(session: string): Promise<void> {
  if (live.value || resuming) return;
  const controller = new AbortController();
  resuming = controller;
  let attached = false;
  const onResumed = (event: ChatEvent) => {
    if (event.event !== 'turn') {
      if (attached) onEvent(event);
      return;
    }
    const snapshot = event.data;
    if (snapshot?.state !== 'running' || live.value || openSession.value !== session) {
      controller.abort();
      return;
    }
    attached = true;
    accepted = Promise.resolve();
    for (const request of snapshot.approvals ?? []) upsertApproval(request);
    live.value = {
      session,
      target: session,
      controller,
      item: itemOf(snapshot),
      resumed: { startedAt: snapshot.startedAt, message: snapshot.message },
    };
  };
  try {
    await watchTurn(session, onResumed, controller.signal);
    // As for a turn sent here: a Stop asked on this page ends it as a stop, however the stream ended.
    if (attached && stopAsked.has(controller)) finishTurn((item) => ({ ...item, stopped: true }));
    else if (attached) finishTurn();
  } catch {
    if (!attached || watching() !== controller) return;
    if (stopAsked.has(controller)) {
      finishTurn((item) => ({ ...item, stopped: true }));
      return;
    }
    // This page stopped watching (another conversation was opened) or lost the connection: the turn goes
    // on on the server; show what is stored (a reconnect picks the turn up again).
    dropLiveTurn();
    if (!controller.signal.aborted && openSession.value === session) await reloadMessages(session);
  } finally {
    if (resuming === controller) resuming = undefined;
  }
}

/** Opening another conversation stops watching a resumed turn of this one (it goes on on the server). */
export function leaveResumedTurn(session: string | null): void {
  const turn = live.value;
  if (!turn?.resumed || turn.session === session) return;
  turn.controller.abort();
}
