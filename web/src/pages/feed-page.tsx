import { useEffect, useRef, useState } from 'preact/hooks';
import { listFeed } from '../api';
import { Badge, Empty, ErrorNote, Loading, PageHeader, Time } from '../components/common';
import { MarkdownView } from '../components/markdown-view';
import { liveEpoch, subscribe } from '../live';
import { errorText } from '../state';
import type { FeedItem } from '../types';

const PAGE = 50;

/** Newest first, each id once (a refetch after a live frame brings entries already shown). */
function merge(a: FeedItem[], b: FeedItem[]): FeedItem[] {
  const seen = new Map<number, FeedItem>();
  for (const item of [...a, ...b]) seen.set(item.id, item);
  return [...seen.values()].sort((x, y) => y.createdAt - x.createdAt || y.id - x.id);
}

function FeedEntry({ item }: { item: FeedItem }) {
  return (
    <li class={`feed-item${item.quiet ? ' quiet' : ''}${item.failed ? ' failed' : ''}`}>
      <article aria-labelledby={`feed-${item.id}`}>
        <header class="feed-head">
          <h2 id={`feed-${item.id}`} class="feed-title">
            {item.title}
          </h2>
          <Badge>{item.kind}</Badge>
          {item.quiet ? <Badge tone="muted">quiet</Badge> : null}
          {item.late ? <Badge tone="warn">late</Badge> : null}
          {item.failed ? <Badge tone="bad">failed</Badge> : null}
          <span class="spacer" />
          <Time at={item.createdAt} />
        </header>
        {item.text ? <MarkdownView text={item.text} /> : null}
      </article>
    </li>
  );
}

/**
 * Everything the scheduler produced (reminders, check-ins, heartbeats), newest first. Quiet entries (Wren
 * decided there was nothing worth sending: `quiet: true`) are dimmed and tagged. A live `feed` frame only
 * names the new entry, so the newest page is re-read to show it in full. "Load more" (also triggered when
 * it scrolls into view) pages back with `before`.
 */
export function FeedPage() {
  const [items, setItems] = useState<FeedItem[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [more, setMore] = useState(true);
  const [busy, setBusy] = useState(false);
  const sentinel = useRef<HTMLButtonElement>(null);

  const loadNewest = async () => {
    try {
      const page = await listFeed(PAGE);
      setItems((current) => (current ? merge(page, current) : page));
      if (page.length < PAGE) setMore(false);
      setError(null);
    } catch (failure) {
      setError(errorText(failure));
    }
  };

  const loadOlder = async () => {
    if (busy || !items?.length) return;
    setBusy(true);
    try {
      const oldest = items[items.length - 1]!;
      const page = await listFeed(PAGE, oldest.id);
      setItems((current) => merge(current ?? [], page));
      if (page.length < PAGE) setMore(false);
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    void loadNewest();
  }, [liveEpoch.value]);

  useEffect(() => subscribe('feed', () => void loadNewest()), []);

  useEffect(() => {
    const button = sentinel.current;
    if (!button || !more) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) void loadOlder();
    });
    observer.observe(button);
    return () => observer.disconnect();
  });

  return (
    <div class="page">
      <PageHeader title="Feed" />
      <ErrorNote message={error} onRetry={loadNewest} />
      {items === null && !error ? <Loading /> : null}
      {items?.length === 0 ? (
        <Empty title="Nothing in the feed yet">
          Reminders, scheduled jobs and check-ins show up here when they run.
        </Empty>
      ) : null}
      {items?.length ? (
        <ol class="feed">
          {items.map((item) => (
            <FeedEntry key={item.id} item={item} />
          ))}
        </ol>
      ) : null}
      {items?.length && more ? (
        <div class="load-more">
          <button ref={sentinel} type="button" class="btn" disabled={busy} onClick={loadOlder}>
            {busy ? 'Loading…' : 'Load more'}
          </button>
        </div>
      ) : null}
    </div>
  );
}
