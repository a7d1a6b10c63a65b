import type { Database } from 'better-sqlite3';

/** One tool definition as it is hashed and pinned. */
export interface PinnedToolDefinition {
  name: string;
  description: string;
  inputSchema: unknown;
}

/** The outcome of checking a server's current definitions against its pin. */
export type PinCheck =
  /** Matches the approved pin. */
  | { status: 'approved'; hash: string }
  /** The server had no pin: this version is now the pin (adding the server was the approval). */
  | { status: 'pinned'; hash: string }
  /** Differs from the approved pin: held until the owner approves it. */
  | { status: 'held'; hash: string; approvedHash: string };

export interface PendingPin {
  server: string;
  hash: string;
  definitions: PinnedToolDefinition[];
  firstSeenAt: number;
  /** The definitions of the approved pin it would replace. */
  approved?: { hash: string; definitions: PinnedToolDefinition[] };
}

interface PinRow {
  server: string;
  hash: string;
  definitions: string;
  first_seen_at: number;
  approved_at: number | null;
}

/**
 * Pins of MCP servers' tool definitions (table `mcp_tool_pins`, schema v4). Every method is synchronous and
 * atomic; the pin of a server is its most recently approved hash.
 */
export class McpPinRepository {
  constructor(
    private readonly db: Database,
    private readonly clock: () => number = Date.now,
  ) {}

  private approvedRow(server: string): PinRow | undefined {
    return this.db
      .prepare(
        'SELECT * FROM mcp_tool_pins WHERE server = ? AND approved_at IS NOT NULL ORDER BY approved_at DESC, rowid DESC LIMIT 1',
      )
      .get(server) as PinRow | undefined;
  }

  private pendingRow(server: string): PinRow | undefined {
    return this.db
      .prepare(
        'SELECT * FROM mcp_tool_pins WHERE server = ? AND approved_at IS NULL ORDER BY first_seen_at DESC, rowid DESC LIMIT 1',
      )
      .get(server) as PinRow | undefined;
  }

  /**
   * Compares `hash` with the server's pin: no pin yet → pins it; same → approved; different → records it as
   * pending (idempotent) and reports `held`.
   */
  check(server: string, hash: string, definitions: PinnedToolDefinition[]): PinCheck {
    return this.db
      .transaction((): PinCheck => {
        const approved = this.approvedRow(server);
        const now = this.clock();
        if (!approved) {
          this.db
            .prepare(
              `INSERT INTO mcp_tool_pins (server, hash, definitions, first_seen_at, approved_at) VALUES (?, ?, ?, ?, ?)
             ON CONFLICT (server, hash) DO UPDATE SET approved_at = excluded.approved_at`,
            )
            .run(server, hash, JSON.stringify(definitions), now, now);
          return { status: 'pinned', hash };
        }
        if (approved.hash === hash) {
          this.db.prepare('DELETE FROM mcp_tool_pins WHERE server = ? AND approved_at IS NULL').run(server);
          return { status: 'approved', hash };
        }
        this.db
          .prepare(
            `INSERT INTO mcp_tool_pins (server, hash, definitions, first_seen_at, approved_at) VALUES (?, ?, ?, ?, NULL)
           ON CONFLICT (server, hash) DO UPDATE SET approved_at = NULL, first_seen_at = excluded.first_seen_at`,
          )
          .run(server, hash, JSON.stringify(definitions), now);
        return { status: 'held', hash, approvedHash: approved.hash };
      })
      .immediate();
  }

  /** The newest unapproved version of a server's definitions, with the approved one it differs from. */
  pending(server: string): PendingPin | undefined {
    const row = this.pendingRow(server);
    if (!row) return undefined;
    const approved = this.approvedRow(server);
    return {
      server,
      hash: row.hash,
      definitions: JSON.parse(row.definitions) as PinnedToolDefinition[],
      firstSeenAt: row.first_seen_at,
      ...(approved
        ? {
            approved: {
              hash: approved.hash,
              definitions: JSON.parse(approved.definitions) as PinnedToolDefinition[],
            },
          }
        : {}),
    };
  }

  /** The approved hash of a server, if any. */
  approvedHash(server: string): string | undefined {
    return this.approvedRow(server)?.hash;
  }

  /**
   * Approves the newest pending version of a server's definitions (it becomes the pin) and drops older
   * pending rows. Returns the approved hash, or undefined when nothing was pending.
   */
  approve(server: string): string | undefined {
    return this.db
      .transaction(() => {
        const row = this.pendingRow(server);
        if (!row) return undefined;
        this.db
          .prepare('UPDATE mcp_tool_pins SET approved_at = ? WHERE server = ? AND hash = ?')
          .run(Math.max(this.clock(), (this.approvedRow(server)?.approved_at ?? 0) + 1), server, row.hash);
        this.db.prepare('DELETE FROM mcp_tool_pins WHERE server = ? AND approved_at IS NULL').run(server);
        return row.hash;
      })
      .immediate();
  }

  /** Forgets every pin of a server (it was removed); the next server under that name is pinned afresh. */
  forget(server: string): void {
    this.db.prepare('DELETE FROM mcp_tool_pins WHERE server = ?').run(server);
  }

  /** Servers with a pending (held) version. */
  heldServers(): string[] {
    return (
      this.db
        .prepare('SELECT DISTINCT server FROM mcp_tool_pins WHERE approved_at IS NULL ORDER BY server')
        .all() as Array<{ server: string }>
    ).map((row) => row.server);
  }
}
