import { randomInt } from 'node:crypto';
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { ChannelStore, Pairing, PairingAsk } from './ports.js';

/** Pairing codes live an hour; at most this many wait per channel. */
export const PAIRING_TTL_MS = 60 * 60 * 1000;
export const MAX_PENDING_PAIRINGS = 3;
/** Inbound ids are kept a week: platforms redeliver within hours, and the table stays small. */
const INBOUND_KEEP_MS = 7 * 24 * 60 * 60 * 1000;
/** Unambiguous characters only (no 0/O, 1/I/L), so a code read aloud or typed is right. */
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

interface PairingRow {
  code: string;
  channel: string;
  sender_id: string;
  chat_id: string;
  sender_name: string;
  created_at: number;
  expires_at: number;
  approved_at: number | null;
}

function toPairing(row: PairingRow): Pairing {
  return {
    code: row.code,
    channel: row.channel,
    senderId: row.sender_id,
    chatId: row.chat_id,
    senderName: row.sender_name,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    approvedAt: row.approved_at,
  };
}

function newCode(): string {
  let code = '';
  for (let index = 0; index < 8; index++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

/** Channel state in SQLite (schema v9): inbound ids, cursors, pairings. */
export class ChannelRepository implements ChannelStore {
  private pruned = 0;

  constructor(private readonly db: Database.Database) {}

  firstSeen(channel: string, chatId: string, platformId: string, now: number): boolean {
    if (now - this.pruned > 60 * 60 * 1000) {
      this.db.prepare('DELETE FROM channel_inbound WHERE seen_at < ?').run(now - INBOUND_KEEP_MS);
      this.pruned = now;
    }
    const result = this.db
      .prepare(
        'INSERT OR IGNORE INTO channel_inbound (channel, chat_id, platform_id, seen_at) VALUES (?, ?, ?, ?)',
      )
      .run(channel, chatId, platformId, now);
    return result.changes === 1;
  }

  cursor(channel: string, key: string): string | undefined {
    const row = this.db
      .prepare('SELECT value FROM channel_cursors WHERE channel = ? AND key = ?')
      .get(channel, key) as { value: string } | undefined;
    return row?.value;
  }

  setCursor(channel: string, key: string, value: string): void {
    this.db
      .prepare(
        'INSERT INTO channel_cursors (channel, key, value) VALUES (?, ?, ?) ON CONFLICT (channel, key) DO UPDATE SET value = excluded.value',
      )
      .run(channel, key, value);
  }

  deleteCursors(channel: string, match: { key: string } | { prefix: string }): void {
    if ('key' in match)
      this.db.prepare('DELETE FROM channel_cursors WHERE channel = ? AND key = ?').run(channel, match.key);
    // substr, not LIKE: a prefix holding % or _ matches only itself.
    else
      this.db
        .prepare('DELETE FROM channel_cursors WHERE channel = ? AND substr(key, 1, ?) = ?')
        .run(channel, match.prefix.length, match.prefix);
  }

  isPaired(channel: string, senderId: string): boolean {
    return (
      this.db
        .prepare(
          'SELECT 1 FROM channel_pairings WHERE channel = ? AND sender_id = ? AND approved_at IS NOT NULL',
        )
        .get(channel, senderId) !== undefined
    );
  }

  askPairing(
    request: { channel: string; senderId: string; chatId: string; senderName: string },
    now: number,
  ): PairingAsk {
    return this.db.transaction((): PairingAsk => {
      this.db.prepare('DELETE FROM channel_pairings WHERE approved_at IS NULL AND expires_at <= ?').run(now);
      const existing = this.db
        .prepare('SELECT * FROM channel_pairings WHERE channel = ? AND sender_id = ?')
        .get(request.channel, request.senderId) as PairingRow | undefined;
      if (existing?.approved_at) return { kind: 'approved' };
      if (existing) return { kind: 'pending', pairing: toPairing(existing) };
      const pending = this.db
        .prepare('SELECT count(*) AS n FROM channel_pairings WHERE channel = ? AND approved_at IS NULL')
        .get(request.channel) as { n: number };
      if (pending.n >= MAX_PENDING_PAIRINGS) return { kind: 'full' };
      const row: PairingRow = {
        code: newCode(),
        channel: request.channel,
        sender_id: request.senderId,
        chat_id: request.chatId,
        sender_name: request.senderName.slice(0, 100),
        created_at: now,
        expires_at: now + PAIRING_TTL_MS,
        approved_at: null,
      };
      this.db
        .prepare(
          'INSERT INTO channel_pairings (code, channel, sender_id, chat_id, sender_name, created_at, expires_at) VALUES (@code, @channel, @sender_id, @chat_id, @sender_name, @created_at, @expires_at)',
        )
        .run(row);
      return { kind: 'new', pairing: toPairing(row) };
    })();
  }

  /** Pending (unexpired) and approved pairings, newest first. */
  listPairings(now: number): Pairing[] {
    const rows = this.db
      .prepare(
        'SELECT * FROM channel_pairings WHERE approved_at IS NOT NULL OR expires_at > ? ORDER BY created_at DESC',
      )
      .all(now) as PairingRow[];
    return rows.map(toPairing);
  }

  /** Approves a pending, unexpired code (case-insensitive); the pairing, or undefined when there is none. */
  approvePairing(code: string, now: number): Pairing | undefined {
    const row = this.db
      .prepare(
        'UPDATE channel_pairings SET approved_at = ? WHERE code = ? AND approved_at IS NULL AND expires_at > ? RETURNING *',
      )
      .get(now, code.trim().toUpperCase(), now) as PairingRow | undefined;
    return row ? toPairing(row) : undefined;
  }

  /** Removes a pairing (pending or approved) by code or by `channel` + sender id; whether one was removed. */
  revokePairing(match: { code: string } | { channel: string; senderId: string }): boolean {
    const result =
      'code' in match
        ? this.db.prepare('DELETE FROM channel_pairings WHERE code = ?').run(match.code.trim().toUpperCase())
        : this.db
            .prepare('DELETE FROM channel_pairings WHERE channel = ? AND sender_id = ?')
            .run(match.channel, match.senderId);
    return result.changes > 0;
  }
}

/**
 * One channel cursor read from the database file at `path`, opened read-only and closed again (for checks
 * such as `wren doctor` that must not migrate or lock a home). Undefined when the file, the table or the row
 * is missing.
 */
export function readChannelCursorAt(path: string, channel: string, key: string): string | undefined {
  if (!existsSync(path)) return undefined;
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const row = db
      .prepare('SELECT value FROM channel_cursors WHERE channel = ? AND key = ?')
      .get(channel, key) as { value: string } | undefined;
    return row?.value;
  } catch {
    // A schema before v9 has no channel_cursors: nothing was stored.
    return undefined;
  } finally {
    db.close();
  }
}
