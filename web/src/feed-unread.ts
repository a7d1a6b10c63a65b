import { effect, signal } from '@preact/signals';
import { listFeed } from './api';
import { subscribe } from './live';
import { hrefOf, route } from './router';
import { toast } from './state';
import type { FeedItem } from './types';

/**
 * How many feed entries worth seeing arrived (live `feed` frames) since the owner last looked at the Feed
 * page: the number beside "Feed" in the navigation. Quiet entries (Wren found nothing to say) are not
 * counted. Opening the feed sets it back to 0; while the feed is open new entries appear there and are not
 * counted. Kept in memory only: a reload starts at 0.
 */
export const feedUnread = signal(0);

/** The toast of a new entry: "Reminder: drink some water", cut to a line. */
function noticeOf(item: FeedItem): string {
  const text = item.text.replace(/\s+/g, ' ').trim();
  const line = text ? `${item.title}: ${text}` : item.title;
  return line.length > 140 ? `${line.slice(0, 139)}…` : line;
}

/**
 * Counts new feed entries and says each in a toast linking to the feed (a reminder that rang while the
 * owner chats must not go unseen); returns the function that stops. Call it once per sign-in. A frame only
 * names the run (its outbox id, title), so the newest entries are read to find the run's entry (its
 * `outboxId`, not the entry's own id) and see its text and whether it is quiet.
 */
export function trackFeedUnread(): () => void {
  feedUnread.value = 0;
  let stopped = false;
  const stopClearing = effect(() => {
    if (route.value.page === 'feed') feedUnread.value = 0;
  });
  const stopListening = subscribe('feed', (frame) => {
    if (route.value.page === 'feed') return;
    listFeed(10)
      .then((items) => items.find((item) => item.outboxId === frame.id))
      .catch(() => undefined)
      .then((item) => {
        if (stopped || route.value.page === 'feed' || item?.quiet) return;
        feedUnread.value++;
        toast(item ? noticeOf(item) : frame.title, 'info', hrefOf('feed'));
      });
  });
  return () => {
    stopped = true;
    stopClearing();
    stopListening();
  };
}
