import { batch } from '@preact/signals';
import { dropApproval, upsertApproval } from './approvals';
import { type AssistantItem, nextKey } from './chat-items';
import { endLiveTurn, items, live, newChat, openSession } from './chat-store';
import { type ChatEvent, type ChatRequest, streamChat } from './chat-stream';
import { navigate, route } from './router';
import { errorText } from './state';

/**
 * Sending a message and streaming the reply into `live` (chat-store.ts). Deltas are gathered and applied
 * once per animation frame; a tool event, the end of the turn or a stop first applies what is gathered, so
 * text and tool calls keep their order.
 */

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
