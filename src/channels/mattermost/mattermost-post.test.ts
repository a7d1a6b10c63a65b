import { describe, expect, it } from 'vitest';
import { quietMentions, readPost } from './mattermost-post.js';

describe('readPost', () => {
  it('reads a JSON-encoded post with its files, and refuses what is not one', () => {
    const post = readPost(
      JSON.stringify({
        id: 'p1',
        user_id: 'u1',
        channel_id: 'c1',
        message: 'hi',
        create_at: 5,
        file_ids: ['f1', 7],
        metadata: { files: [{ id: 'f1', name: 'a.png', mime_type: 'image/png', size: 3 }] },
      }),
    );
    expect(post).toMatchObject({ id: 'p1', rootId: '', automated: false });
    expect(post?.files).toEqual([{ id: 'f1', name: 'a.png', mimeType: 'image/png', size: 3 }]);
    for (const bad of [
      '{',
      'null',
      '42',
      JSON.stringify({ id: 'p' }),
      { id: 1, user_id: 'u', channel_id: 'c' },
    ])
      expect(readPost(bad)).toBeUndefined();
  });

  it('marks system messages and bot or webhook posts as automated', () => {
    const base = { id: 'p', user_id: 'u', channel_id: 'c' };
    expect(readPost({ ...base, type: 'system_join_channel' })?.automated).toBe(true);
    expect(readPost({ ...base, props: { from_bot: 'true' } })?.automated).toBe(true);
    expect(readPost({ ...base, props: { from_webhook: 'true' } })?.automated).toBe(true);
  });
});

describe('quietMentions', () => {
  it('makes every @-mention inert outside code, and leaves emails and code alone', () => {
    expect(quietMentions('@channel and @all, ping @alice.b')).toBe(
      '@\u2060channel and @\u2060all, ping @\u2060alice.b',
    );
    expect(quietMentions('mail me@example.com')).toBe('mail me@example.com');
    expect(quietMentions('`@here` and\n```\n@decorator\n```')).toBe('`@here` and\n```\n@decorator\n```');
  });
});
