/**
 * A storage problem the user has to act on (damaged database file, schema from a newer Wren, home in use).
 * The message is complete: which file, what SQLite or the OS said, and what to do next.
 */
export class StoreError extends Error {
  override name = 'StoreError';
  /** The file concerned, when there is one. */
  readonly path: string | undefined;

  constructor(message: string, details: { path?: string; cause?: unknown } = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.path = details.path;
  }
}
