/** Why an archive is refused: written for a person, naming what is wrong. */
export class ArchiveError extends Error {
  override name = 'ArchiveError';
}

/** A compact, sortable local-free stamp for names: `20250102-030405`. */
export function fileStamp(now: number): string {
  return new Date(now).toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}
