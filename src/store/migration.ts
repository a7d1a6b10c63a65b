import type { Database } from 'better-sqlite3';

/** One schema step. `up` runs inside a transaction together with the `user_version` bump. */
export interface Migration {
  version: number;
  description: string;
  up(db: Database): void;
}
