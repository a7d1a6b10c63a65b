import { useEffect, useRef, useState } from 'preact/hooks';
import { pendingApprovals } from '../approvals';
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
} from '../chat-store';
import { ApprovalCard } from '../components/approval-card';
import { ErrorNote, Spinner } from '../components/common';
import { Composer, setDraft } from '../components/composer';
import { Icon } from '../components/icons';
import { AssistantMessage, UserMessage } from '../components/message-view';
import { SessionList, sessionLabel } from '../components/session-list';
import { liveEpoch } from '../live';

/** Distance from the bottom (px) within which the view counts as "at the bottom" and stays pinned. */
const PIN_SLACK = 48;

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

/**
 * The conversation view. Scroll contract: while the owner is at the bottom, growing content (a streaming
 * reply, a new message) keeps the view pinned there; once they scroll up it stays where they put it and a
 * "Jump to latest" button appears. A ResizeObserver on the content catches every growth, including
 * images and code blocks that lay out late.
 */
export function ChatPage({ param }: { param: string }) {
  const [drawer, setDrawer] = useState(false);
  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const [atBottom, setAtBottom] = useState(true);

  useEffect(() => {
    showSession(param || null);
    pinned.current = true;
  }, [param]);

  useEffect(() => {
    void loadSessions();
    if (liveEpoch.value > 0) reloadOpenSession();
  }, [liveEpoch.value]);

  useEffect(() => {
    const box = scroller.current;
    const inner = content.current;
    if (!box || !inner) return;
    const observer = new ResizeObserver(() => {
      if (pinned.current) box.scrollTop = box.scrollHeight;
    });
    observer.observe(inner);
    return () => observer.disconnect();
  }, []);

  const onScroll = () => {
    const box = scroller.current;
    if (!box) return;
    const bottom = box.scrollHeight - box.scrollTop - box.clientHeight <= PIN_SLACK;
    pinned.current = bottom;
    if (bottom !== atBottom) setAtBottom(bottom);
  };

  const jump = () => {
    const box = scroller.current;
    if (!box) return;
    pinned.current = true;
    setAtBottom(true);
    box.scrollTo({ top: box.scrollHeight, behavior: 'smooth' });
  };

  useEffect(() => {
    if (!drawer) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setDrawer(false);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [drawer]);

  const session = openSession.value;
  const record = sessions.value.find((item) => item.id === session);
  const title = record ? sessionLabel(record) : session ? 'Conversation' : 'New chat';
  const list = items.value;
  const turn = live.value;
  const otherBusy = session !== null && busySessions.value.has(session) && live.value?.session !== session;
  const elsewhere = live.value !== null && live.value.session !== session;

  return (
    <div class="chat-layout">
      <aside
        class={`chat-sessions${drawer ? ' open' : ''}`}
        id="chat-sessions"
        aria-label="Conversations list"
      >
        <SessionList onPick={() => setDrawer(false)} />
      </aside>
      {drawer ? (
        <button
          type="button"
          class="scrim"
          aria-label="Close conversations"
          onClick={() => setDrawer(false)}
        />
      ) : null}
      <section class="chat-main" aria-labelledby="chat-title">
        <header class="chat-header">
          <button
            type="button"
            class="icon-btn chat-drawer-btn"
            aria-label="Conversations"
            aria-expanded={drawer}
            aria-controls="chat-sessions"
            onClick={() => setDrawer(!drawer)}
          >
            <Icon name="sidebar" size={20} />
          </button>
          <h1 id="chat-title" class="chat-title">
            <span class="visually-hidden">Chat: </span>
            {title}
          </h1>
          {record ? <span class={`badge channel channel-${record.channel}`}>{record.channel}</span> : null}
        </header>
        <div class="chat-scroll" ref={scroller} onScroll={onScroll}>
          <div class="chat-content" ref={content}>
            {loading.value && !list.length ? (
              <div class="loading-row">
                <Spinner label="Loading conversation" />
              </div>
            ) : null}
            <ErrorNote message={loadError.value} onRetry={reloadOpenSession} />
            {!session && !list.length && !live.value ? <Welcome /> : null}
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
