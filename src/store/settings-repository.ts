import type { Database, Statement } from 'better-sqlite3';
import type { SettingsStore } from './ports.js';

/**
 * Small string settings kept in the database (for example the gateway's token hash). Keys are free-form;
 * prefix them with the owning module (`gateway.token_hash`). Every method is synchronous and atomic.
 */
export class SettingsRepository implements SettingsStore {
  private readonly getStatement: Statement<[string]>;
  private readonly setStatement: Statement<[string, string]>;
  private readonly deleteStatement: Statement<[string]>;

  constructor(db: Database) {
    this.getStatement = db.prepare('SELECT value FROM settings WHERE key = ?');
    this.setStatement = db.prepare(
      'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    );
    this.deleteStatement = db.prepare('DELETE FROM settings WHERE key = ?');
  }

  /** The value stored under `key`, or undefined. */
  get(key: string): string | undefined {
    return (this.getStatement.get(key) as { value: string } | undefined)?.value;
  }

  /** Stores `value` under `key`, replacing any previous value. Idempotent. */
  set(key: string, value: string): void {
    this.setStatement.run(key, value);
  }

  /** Removes `key`; true when it existed. */
  delete(key: string): boolean {
    return this.deleteStatement.run(key).changes > 0;
  }
}
