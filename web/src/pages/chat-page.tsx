import { useEffect } from 'preact/hooks';
import { pendingApprovals } from '../approvals';
import { leaveResumedTurn, resumeTurn } from '../chat-send';
import {
  busySessions,
  firstSeq,
  items,
  live,
  loadError,
  loading,
  loadSessions,
  openSession,
  reloadOpenSession,
  sessions,
  showSession,
  withResumed,
} from '../chat-store';
import { ApprovalCard } from '../components/approval-card';
import { ErrorNote, Spinner } from '../components/common';
import { Composer, setDraft } from '../components/composer';
import { Icon } from '../components/icons';
import { AssistantMessage, UserMessage } from '../components/message-view';
import { channelLabel, SessionList, sessionLabel } from '../components/session-list';
import { useDrawer } from '../components/use-drawer';
import { useStickToBottom } from '../components/use-stick-to-bottom';
import { liveEpoch } from '../live';

function InlineApprovals() {
  const session = openSession.value;
  const mine = pendingApprovals.value.filter((request) => session && request.sessionId === session);
  if (!mine.length) return null;
  return (
    <section class="inline-approvals" aria-label="Waiting for your approval">
      {mine.map((request) => (
        <ApprovalCard key={request.id} request={request} compact />
      ))}
    </section>
  );
}

const SUGGESTIONS = [
  'What can you do?',
  'Remind me in 20 minutes to stretch',
  'Summarise what you know about me',
  'What is on my task list?',
];

function Welcome() {
  return (
    <div class="welcome">
      <div class="welcome-mark" aria-hidden="true">
        <img src="/icon.svg" alt="" width="56" height="56" />
      </div>
      <h2>How can I help?</h2>
      <p class="muted">Ask anything, attach files or images, or pick a start:</p>
      <ul class="suggestions">
        {SUGGESTIONS.map((text) => (
          <li key={text}>
            <button type="button" class="suggestion" onClick={() => setDraft(text)}>
              {text}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The conversation's messages, the reply streaming in, and what else the owner should know about it. */
function Conversation() {
  const session = openSession.value;
  const record = sessions.value.find((item) => item.id === session);
  const turn = live.value;
  // A turn picked up after a reload: its stored part is shown from the live item, not twice.
  const list =
    turn?.resumed && turn.session === session ? withResumed(items.value, turn.resumed) : items.value;
  const otherBusy = session !== null && busySessions.value.has(session) && turn?.session !== session;
  return (
    <>
      {loading.value && !list.length ? (
        <div class="loading-row">
          <Spinner label="Loading conversation" />
        </div>
      ) : null}
      <ErrorNote message={loadError.value} onRetry={reloadOpenSession} />
      {!session && !list.length && !turn ? <Welcome /> : null}
      {firstSeq.value > 1 ? (
        <p class="consolidated-note">Earlier messages were consolidated into memory.</p>
      ) : null}
      <div class="messages" role="log" aria-label="Messages" aria-live="off">
        {list.map((item) =>
          item.kind === 'user' ? (
            <UserMessage key={item.key} item={item} />
          ) : (
            <AssistantMessage key={item.key} item={item} />
          ),
        )}
        {/* Same key as the finished item it becomes: its DOM is kept, nothing flashes at the end. */}
        {turn && turn.session === session ? (
          <AssistantMessage key={turn.item.key} item={turn.item} streaming />
        ) : null}
      </div>
      <InlineApprovals />
      {otherBusy ? (
        <p class="muted busy-note">
          <span class="spinner small" aria-hidden="true" /> Wren is replying on{' '}
          {record?.channel ?? 'another channel'}…
        </p>
      ) : null}
    </>
  );
}

/**
 * The conversation view: the conversation list (a drawer below 1025 px, the page behind it inert while it
 * is open), the open conversation kept pinned to its newest message, and the message box.
 */
export function ChatPage({ param }: { param: string }) {
  const drawer = useDrawer('(min-width: 1025px)');
  const { scroller, content, atBottom, onScroll, jump, pin } = useStickToBottom();

  // Opening a conversation picks up its turn in flight, if any (the tab was reloaded while Wren answered).
  useEffect(() => {
    leaveResumedTurn(param || null);
    showSession(param || null);
    pin();
    if (param) void resumeTurn(param);
  }, [param]);

  useEffect(() => {
    void loadSessions();
    if (liveEpoch.value === 0) return;
    reloadOpenSession();
    const open = openSession.value;
    if (open) void resumeTurn(open);
  }, [liveEpoch.value]);

  const session = openSession.value;
  const record = sessions.value.find((item) => item.id === session);
  const title = record ? sessionLabel(record) : session ? 'Conversation' : 'New chat';
  const elsewhere = live.value !== null && live.value.session !== session;

  return (
    <div class="chat-layout">
      <aside
        class={`chat-sessions${drawer.open ? ' open' : ''}`}
        id="chat-sessions"
        aria-label="Conversations list"
        ref={drawer.panel}
      >
        <SessionList onPick={() => drawer.setOpen(false)} />
      </aside>
      {drawer.open ? (
        <button
          type="button"
          class="scrim"
          aria-label="Close conversations"
          onClick={() => drawer.setOpen(false)}
        />
      ) : null}
      <section class="chat-main" aria-labelledby="chat-title" inert={drawer.open}>
        <header class="chat-header">
          <button
            ref={drawer.toggle}
            type="button"
            class="icon-btn chat-drawer-btn"
            aria-label="Conversations"
            aria-expanded={drawer.open}
            aria-controls="chat-sessions"
            onClick={() => drawer.setOpen(!drawer.open)}
          >
            <Icon name="sidebar" size={20} />
          </button>
          <h1 id="chat-title" class="chat-title">
            <span class="visually-hidden">Chat: </span>
            {title}
          </h1>
          {record ? (
            <span class={`badge channel channel-${record.channel}`}>{channelLabel(record.channel)}</span>
          ) : null}
        </header>
        <div class="chat-scroll" ref={scroller} onScroll={onScroll}>
          <div class="chat-content" ref={content}>
            <Conversation />
          </div>
        </div>
        {!atBottom ? (
          <button type="button" class="jump-btn" onClick={jump}>
            Jump to latest
          </button>
        ) : null}
        <div class="composer-wrap">
          <Composer disabledReason={elsewhere ? 'Wren is answering in another chat…' : null} />
        </div>
      </section>
    </div>
  );
}
