import { useState } from 'preact/hooks';
import { busySessions, newChat, openSession, sessions, sessionsError } from '../chat-store';
import { plainText } from '../plain-text';
import { hrefOf } from '../router';
import type { SessionRecord } from '../types';
import { Time } from './common';
import { Icon } from './icons';

/**
 * A channel's name as people know it: the web app's own conversations run on the HTTP API's channel
 * (`api`), which is the web here; `cli` is the terminal.
 */
export function channelLabel(channel: string): string {
  if (channel === 'api') return 'web';
  if (channel === 'cli') return 'terminal';
  return channel;
}

/**
 * How a conversation is named in the list and above it: its title as plain text (titles are first
 * messages, often Markdown) when the server has one, else where it lives.
 */
export function sessionLabel(session: SessionRecord): string {
  const title = session.title ? plainText(session.title) : '';
  if (title) return title;
  if (session.channel === 'api') return 'Web chat';
  if (session.channel === 'cli') return 'Terminal';
  return `${session.channel} · ${session.chatId}`;
}

function matches(session: SessionRecord, query: string): boolean {
  const q = query.trim().toLowerCase();
  if (!q) return true;
  const fields = [session.channel, channelLabel(session.channel), session.chatId, session.id];
  return [...fields, session.title ?? '', sessionLabel(session)].some((field) =>
    field.toLowerCase().includes(q),
  );
}

/**
 * Every conversation (all channels), newest first, with a channel badge and a search box that filters by
 * channel, chat, id and title on the client.
 */
export function SessionList({ onPick }: { onPick?: () => void }) {
  const [query, setQuery] = useState('');
  const shown = sessions.value.filter((session) => matches(session, query));
  const busy = busySessions.value;
  return (
    <div class="session-list">
      <div class="session-tools">
        <button
          type="button"
          class="btn primary block"
          onClick={() => {
            newChat();
            onPick?.();
          }}
        >
          <Icon name="plus" /> New chat
        </button>
        <label class="search">
          <Icon name="search" size={16} />
          <span class="visually-hidden">Search conversations</span>
          <input
            type="search"
            value={query}
            placeholder="Search conversations"
            onInput={(event) => setQuery(event.currentTarget.value)}
          />
        </label>
      </div>
      {sessionsError.value ? <p class="field-error">{sessionsError.value}</p> : null}
      <nav aria-label="Conversations" class="session-scroll">
        {shown.length === 0 ? (
          <p class="muted session-empty">{query ? 'No conversation matches.' : 'No conversations yet.'}</p>
        ) : (
          <ul>
            {shown.map((session) => (
              <li key={session.id}>
                <a
                  href={hrefOf('chat', session.id)}
                  class="session-link"
                  aria-current={session.id === openSession.value ? 'page' : undefined}
                  onClick={() => onPick?.()}
                >
                  <span class="session-title">
                    {sessionLabel(session)}
                    {busy.has(session.id) ? <span class="live-dot" title="Replying now" /> : null}
                  </span>
                  <span class="session-meta">
                    <span class={`badge channel channel-${session.channel}`}>
                      {channelLabel(session.channel)}
                    </span>
                    <Time at={session.updatedAt} />
                  </span>
                </a>
              </li>
            ))}
          </ul>
        )}
      </nav>
    </div>
  );
}
