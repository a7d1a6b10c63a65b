import type { Client4 } from '@mattermost/client';
import type { ChannelLedger } from '../channel-ledger.js';

/** Channels whose marks are kept (the most recently active); older ones are no longer read back. */
const MAX_CHANNELS = 50;
/** Posts older than this are not read back after a restart: a day-old question answered now is noise. */
const MAX_AGE_MS = 12 * 60 * 60 * 1000;
/** At most this many posts are read back per channel and catch-up. */
const MAX_POSTS = 200;

interface Mark {
  /** `create_at` of the newest post handled in the channel. */
  at: number;
  direct: boolean;
}

/**
 * How far Wren has read each Mattermost channel it talks in, kept in the channel ledger (one cursor) so a
 * restart or a dropped WebSocket can read back the posts it missed through `GET /channels/{id}/posts?since=`.
 * Posts read back go through the same handling as live ones; the ledger's first-seen check makes a post
 * that was already handled a no-op, so reading back too much repeats nothing.
 */
export class ReadMarks {
  private readonly marks: Map<string, Mark>;

  constructor(
    private readonly ledger: ChannelLedger,
    private readonly channel: string,
  ) {
    this.marks = new Map(parseMarks(ledger.cursor(channel, 'read-marks')));
  }

  /** Records that a post of `createAt` in `channelId` was handled (marks only move forward). */
  note(channelId: string, direct: boolean, createAt: number): void {
    const known = this.marks.get(channelId);
    if (known && known.at >= createAt) return;
    this.marks.delete(channelId);
    this.marks.set(channelId, { at: createAt, direct });
    if (this.marks.size > MAX_CHANNELS) this.marks.delete(this.marks.keys().next().value as string);
    this.ledger.setCursor(this.channel, 'read-marks', JSON.stringify([...this.marks]));
  }

  /**
   * The posts created after each mark (and within the last 12 hours), oldest first, with whether their
   * channel is a DM. A channel that cannot be read (left, deleted) is skipped and reported.
   */
  async missed(
    api: Client4,
    now: number,
    onError: (error: unknown) => void,
  ): Promise<Array<{ post: unknown; direct: boolean }>> {
    const found: Array<{ post: { create_at?: unknown }; direct: boolean }> = [];
    for (const [channelId, mark] of [...this.marks]) {
      const since = Math.max(mark.at, now - MAX_AGE_MS);
      try {
        const list = await api.getPostsSince(channelId, since);
        const posts = Object.values(list?.posts ?? {}).filter(
          (post) => typeof post?.create_at === 'number' && post.create_at > since,
        );
        for (const post of posts.slice(0, MAX_POSTS)) found.push({ post, direct: mark.direct });
      } catch (error) {
        onError(error);
      }
    }
    return found.sort((a, b) => Number(a.post.create_at) - Number(b.post.create_at));
  }
}

function parseMarks(raw: string | undefined): Array<[string, Mark]> {
  try {
    const list = JSON.parse(raw ?? '[]') as unknown;
    if (!Array.isArray(list)) return [];
    return list.filter(
      (entry): entry is [string, Mark] =>
        Array.isArray(entry) && typeof entry[0] === 'string' && typeof entry[1]?.at === 'number',
    );
  } catch {
    return [];
  }
}
