import type { Migration } from './migration.js';

/**
 * Schema v9: what chat platforms need to survive a restart.
 * - `channel_inbound`: platform message ids already taken in (per channel and chat), so a redelivery after a
 *   restart is ignored; rows older than a week are pruned (platforms redeliver within hours).
 * - `channel_cursors`: each channel's read position (Telegram's update offset, an IMAP mailbox's UID
 *   high-water mark), so a restart neither misses nor repeats.
 * - `channel_pairings`: codes given to unknown senders (8 characters, valid an hour, at most 3 pending per
 *   channel); `approved_at` set when the owner approves, which admits the sender from then on.
 * Times are UTC Unix milliseconds.
 */
const v9 = `
CREATE TABLE channel_inbound (
  channel TEXT NOT NULL,
  chat_id TEXT NOT NULL,
  platform_id TEXT NOT NULL,
  seen_at INTEGER NOT NULL,
  PRIMARY KEY (channel, chat_id, platform_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX channel_inbound_seen ON channel_inbound (seen_at);

CREATE TABLE channel_cursors (
  channel TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (channel, key)
) STRICT, WITHOUT ROWID;

CREATE TABLE channel_pairings (
  code TEXT PRIMARY KEY CHECK (length(code) = 8),
  channel TEXT NOT NULL,
  sender_id TEXT NOT NULL,
  chat_id TEXT NOT NULL,
  sender_name TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  approved_at INTEGER,
  UNIQUE (channel, sender_id)
) STRICT;
`;

export const MIGRATION_V9: Migration = {
  version: 9,
  description: 'channel inbound ids, cursors and pairings',
  up: (db) => db.exec(v9),
};
