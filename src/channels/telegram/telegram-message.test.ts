import type { Message, UserFromGetMe } from 'grammy/types';
import { describe, expect, it } from 'vitest';
import { toPlatformMessage } from './telegram-message.js';

const ME = { id: 1, is_bot: true, first_name: 'Wren', username: 'WrenBot' } as UserFromGetMe;
const photo = (sizes: number[]) =>
  ({
    message_id: 5,
    date: 0,
    chat: { id: 42, type: 'private' },
    from: { id: 42, is_bot: false, first_name: 'Ann' },
    photo: sizes.map((size, index) => ({
      file_id: `p${index}`,
      file_unique_id: `u${index}`,
      width: 100 * (index + 1),
      height: 100 * (index + 1),
      file_size: size,
    })),
  }) as unknown as Message;

describe('toPlatformMessage', () => {
  it('takes the largest photo size within the cap, and describes it without fetching it', () => {
    expect(toPlatformMessage(photo([10, 500, 9000]), ME, 1000).files.photo).toEqual({
      fileId: 'p1',
      size: 500,
    });
    expect(toPlatformMessage(photo([10, 500, 9000]), ME).files.photo).toEqual({ fileId: 'p2', size: 9000 });
    // None fits: the smallest, which the cap then refuses before any download.
    expect(toPlatformMessage(photo([5000, 9000]), ME, 1000).files.photo).toEqual({
      fileId: 'p0',
      size: 5000,
    });
  });
});
