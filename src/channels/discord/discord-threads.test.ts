import { type APIChannel, ChannelType } from 'discord-api-types/v10';
import { describe, expect, it } from 'vitest';
import { DiscordThreads } from './discord-threads.js';

const thread = (id: string, parent: string) =>
  ({ id, type: ChannelType.PublicThread, parent_id: parent }) as unknown as APIChannel;
const text = (id: string) => ({ id, type: ChannelType.GuildText, parent_id: '55' }) as unknown as APIChannel;

describe('DiscordThreads', () => {
  it('answers from what the gateway said, without asking', async () => {
    const threads = new DiscordThreads();
    threads.note(thread('2', '1'));
    threads.note(text('3'));
    const asked: string[] = [];
    const fetch = async (id: string) => {
      asked.push(id);
      return text(id);
    };
    expect(await threads.parentOf('2', fetch)).toBe('1');
    // A text channel's parent is its category, not a channel Wren listens in.
    expect(await threads.parentOf('3', fetch)).toBeUndefined();
    expect(asked).toEqual([]);
  });

  it('asks once for a channel never seen, and forgets a deleted thread', async () => {
    const threads = new DiscordThreads();
    const asked: string[] = [];
    const fetch = async (id: string) => {
      asked.push(id);
      return thread(id, '1');
    };
    expect(await threads.parentOf('4', fetch)).toBe('1');
    expect(await threads.parentOf('4', fetch)).toBe('1');
    expect(asked).toEqual(['4']);
    threads.forget('4');
    await threads.parentOf('4', fetch);
    expect(asked).toEqual(['4', '4']);
  });

  it('treats a failed lookup as no thread, and asks again next time', async () => {
    const threads = new DiscordThreads();
    let calls = 0;
    const failing = async (): Promise<APIChannel> => {
      calls++;
      throw new Error('503: Service Unavailable');
    };
    expect(await threads.parentOf('9', failing)).toBeUndefined();
    expect(await threads.parentOf('9', failing)).toBeUndefined();
    expect(calls).toBe(2);
  });

  it('keeps at most 5,000 channels, forgetting the oldest first', async () => {
    const threads = new DiscordThreads();
    for (let index = 0; index <= 5000; index++) threads.note(thread(`t${index}`, 'p'));
    const asked: string[] = [];
    const fetch = async (id: string) => {
      asked.push(id);
      return text(id);
    };
    expect(await threads.parentOf('t5000', fetch)).toBe('p');
    expect(await threads.parentOf('t0', fetch)).toBeUndefined();
    expect(asked).toEqual(['t0']);
  });
});
