import { randomUUID } from 'node:crypto';
import type { Database } from 'better-sqlite3';

/**
 * A standing approval, bound to a tool and (when the tool names one) a target: for exec the program name, for
 * files a path prefix (ending in `/`), for web the host. `once` grants are consumed by the first call they
 * cover; `session` grants cover one session; `always` grants cover every session until revoked.
 */
export interface Grant {
  id: string;
  tool: string;
  /** Absent: the grant covers every call of the tool. */
  target?: string;
  scope: 'once' | 'session' | 'always';
  sessionId?: string;
  createdAt: number;
  createdBy: string;
}

export type NewGrant = Omit<Grant, 'id' | 'createdAt'> & { createdAt?: number };

interface GrantRow {
  id: string;
  tool: string;
  target: string | null;
  scope: Grant['scope'];
  session_id: string | null;
  created_at: number;
  created_by: string;
}

function toGrant(row: GrantRow): Grant {
  return {
    id: row.id,
    tool: row.tool,
    ...(row.target !== null ? { target: row.target } : {}),
    scope: row.scope,
    ...(row.session_id !== null ? { sessionId: row.session_id } : {}),
    createdAt: row.created_at,
    createdBy: row.created_by,
  };
}

/** Whether a grant's target covers a call's target (exact, or a path prefix ending in `/`). */
export function targetCovers(granted: string | undefined, target: string | undefined): boolean {
  if (granted === undefined) return true;
  if (target === undefined) return false;
  return granted === target || (granted.endsWith('/') && target.startsWith(granted));
}

/** Stored grants. Rows are never deleted: revoking or consuming marks them, so history stays. */
export class GrantRepository {
  constructor(
    private readonly db: Database,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Stores a grant and returns it. */
  add(grant: NewGrant): Grant {
    if ((grant.scope === 'session') !== (grant.sessionId !== undefined)) {
      throw new Error('a session grant needs a sessionId, and only a session grant may have one');
    }
    const stored: Grant = {
      ...grant,
      id: randomUUID().slice(0, 8),
      createdAt: grant.createdAt ?? this.clock(),
    };
    this.db
      .prepare(
        `INSERT INTO grants (id, tool, target, scope, session_id, created_at, created_by)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        stored.id,
        stored.tool,
        stored.target ?? null,
        stored.scope,
        stored.sessionId ?? null,
        stored.createdAt,
        stored.createdBy,
      );
    return stored;
  }

  /** Grants in force (not revoked, not consumed), newest first; only those of `sessionId` among session ones. */
  active(sessionId?: string): Grant[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM grants WHERE revoked_at IS NULL AND consumed_at IS NULL
           AND (scope != 'session' OR @all OR session_id = @sessionId)
         ORDER BY created_at DESC, id`,
      )
      .all({ all: sessionId === undefined ? 1 : 0, sessionId: sessionId ?? null }) as GrantRow[];
    return rows.map(toGrant);
  }

  /**
   * Finds a grant covering `tool` + `target` in `sessionId` and, when it is a `once` grant, consumes it in
   * the same transaction (so two parallel calls cannot both use it). Prefers always, then session, then once.
   */
  take(tool: string, target: string | undefined, sessionId: string): Grant | undefined {
    return this.db
      .transaction(() => {
        const order = { always: 0, session: 1, once: 2 } as const;
        const found = this.active(sessionId)
          .filter((grant) => grant.tool === tool && targetCovers(grant.target, target))
          .sort((a, b) => order[a.scope] - order[b.scope])[0];
        if (found?.scope === 'once') {
          this.db.prepare('UPDATE grants SET consumed_at = ? WHERE id = ?').run(this.clock(), found.id);
        }
        return found;
      })
      .immediate();
  }

  /** Revokes a grant in force; false when there is none with that id. Idempotent. */
  revoke(id: string): boolean {
    return (
      this.db
        .prepare(
          'UPDATE grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL AND consumed_at IS NULL',
        )
        .run(this.clock(), id).changes > 0
    );
  }
}
