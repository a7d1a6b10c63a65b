import { type APIChannel, ChannelType } from 'discord-api-types/v10';

const THREAD_TYPES: ReadonlySet<number> = new Set([
  ChannelType.AnnouncementThread,
  ChannelType.PublicThread,
  ChannelType.PrivateThread,
]);

/** Most channels remembered; past it the oldest are forgotten (and asked for again if they speak). */
const MAX_KNOWN = 5000;

/**
 * Which guild channel each thread hangs under, so a mention in a thread of a listed channel is answered.
 * Learnt from the gateway (the threads GUILD_CREATE lists, THREAD_CREATE/UPDATE/LIST_SYNC) and, for a
 * channel it never mentioned, asked once over REST; `null` remembers "not a thread".
 */
export class DiscordThreads {
  private readonly parents = new Map<string, string | null>();

  /** Records what a channel object says (a thread's parent, or that it is none). */
  note(channel: Pick<APIChannel, 'id' | 'type'> & { parent_id?: string | null }): void {
    const parent = THREAD_TYPES.has(channel.type) ? (channel.parent_id ?? null) : null;
    this.parents.delete(channel.id);
    this.parents.set(channel.id, parent);
    if (this.parents.size > MAX_KNOWN) this.parents.delete(this.parents.keys().next().value!);
  }

  forget(channelId: string): void {
    this.parents.delete(channelId);
  }

  /**
   * The parent channel of `channelId` when it is a thread, else undefined. `fetch` (a REST read) runs only
   * for a channel not seen before; when it fails the channel counts as no thread this time.
   */
  async parentOf(channelId: string, fetch: (id: string) => Promise<APIChannel>): Promise<string | undefined> {
    if (!this.parents.has(channelId)) {
      const channel = await fetch(channelId).catch(() => undefined);
      if (!channel) return undefined;
      this.note(channel as Pick<APIChannel, 'id' | 'type'> & { parent_id?: string | null });
    }
    return this.parents.get(channelId) ?? undefined;
  }

  clear(): void {
    this.parents.clear();
  }
}
