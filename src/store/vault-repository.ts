import type { Database } from 'better-sqlite3';

/** Where a vault secret may be sent; any other use asks the owner. */
export interface VaultBindings {
  /** Hosts an HTTP request carrying it may go to (`api.example.com`, `*.example.com`). */
  hosts?: string[];
  /** Programs an exec call may pass it to (by name, e.g. `curl`, `gh`). */
  programs?: string[];
  /** MCP servers whose tool arguments may hold it (by the server's name in config). */
  mcp?: string[];
}

/** One stored secret (schema v14 `vault_secrets`): the value stays sealed here. */
export interface VaultRecord {
  name: string;
  /** The value sealed under WREN_SECRET_KEY (see src/util/seal.ts), bound to the name. */
  sealed: string;
  bindings: VaultBindings;
  createdAt: number;
  updatedAt: number;
  usedAt?: number;
}

interface Row {
  name: string;
  sealed: string;
  bindings: string;
  created_at: number;
  updated_at: number;
  used_at: number | null;
}

const toRecord = (row: Row): VaultRecord => ({
  name: row.name,
  sealed: row.sealed,
  bindings: JSON.parse(row.bindings) as VaultBindings,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  ...(row.used_at !== null ? { usedAt: row.used_at } : {}),
});

/** The vault's rows (schema v14); sealing and opening values is the vault service's job, not the store's. */
export class VaultRepository {
  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {}

  /** Creates or replaces `name` (its creation time kept on replace). */
  put(name: string, sealed: string, bindings: VaultBindings): VaultRecord {
    const at = this.now();
    this.db
      .prepare(
        `INSERT INTO vault_secrets (name, sealed, bindings, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET sealed = excluded.sealed, bindings = excluded.bindings, updated_at = excluded.updated_at`,
      )
      .run(name, sealed, JSON.stringify(bindings), at, at);
    return this.get(name)!;
  }

  get(name: string): VaultRecord | undefined {
    const row = this.db.prepare('SELECT * FROM vault_secrets WHERE name = ?').get(name) as Row | undefined;
    return row ? toRecord(row) : undefined;
  }

  /** Every secret, by name (sealed values included: callers show names and bindings only). */
  list(): VaultRecord[] {
    return (this.db.prepare('SELECT * FROM vault_secrets ORDER BY name').all() as Row[]).map(toRecord);
  }

  remove(name: string): boolean {
    return this.db.prepare('DELETE FROM vault_secrets WHERE name = ?').run(name).changes === 1;
  }

  /** Notes a use (the list shows when each secret was last used). */
  touch(name: string): void {
    this.db.prepare('UPDATE vault_secrets SET used_at = ? WHERE name = ?').run(this.now(), name);
  }
}
