import * as z from 'zod';

/** The manifest's name inside an archive (at its root, beside the home's files). */
export const MANIFEST_NAME = 'wren-backup.json';
/** The archive format this Wren writes and reads. */
export const FORMAT_VERSION = 1;
/** The database's name in the archive and in a home. */
export const DATABASE_NAME = 'wren.db';

const relativePath = z
  .string()
  .min(1)
  .max(4096)
  .refine((path) => safeArchivePath(path), { message: 'not a safe relative path' });

const manifestSchema = z.object({
  format: z.literal('wren-backup'),
  formatVersion: z.number().int().min(1),
  wrenVersion: z.string(),
  schemaVersion: z.number().int().min(0),
  createdAt: z.string(),
  withSecrets: z.boolean(),
  /** Rows per table in the database copy, as it was taken. */
  counts: z.record(z.string(), z.number().int().min(0)),
  /** Files of the home left out because they hold secrets: a restore keeps the previous home's. */
  leftOut: z.array(relativePath).max(100_000).default([]),
  files: z
    .array(
      z.object({
        path: relativePath,
        size: z.number().int().min(0),
        sha256: z.string().regex(/^[0-9a-f]{64}$/),
      }),
    )
    .max(1_000_000),
});

/** What an archive says of itself: versions, when, whether it holds secrets, and every file's size and hash. */
export type BackupManifest = z.output<typeof manifestSchema>;
export type ManifestFile = BackupManifest['files'][number];

/**
 * Whether `path` is a plain relative path inside the archive's root: `/`-separated, no empty, `.` or `..`
 * segment, not absolute (nor a drive or UNC path), no backslash, no control character. Pure.
 */
export function safeArchivePath(path: string): boolean {
  if (!path || path.length > 4096 || path.startsWith('/') || /^[A-Za-z]:/.test(path)) return false;
  if (/[\\\u0000-\u001f]/.test(path)) return false;
  const segments = path.replace(/\/$/, '').split('/');
  return segments.every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

/**
 * Parses the manifest's JSON. @returns the manifest, or why it is not one this Wren reads (a newer format,
 * a missing field, an unsafe path).
 */
export function parseManifest(
  text: string,
): { ok: true; manifest: BackupManifest } | { ok: false; error: string } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { ok: false, error: `${MANIFEST_NAME} is not JSON` };
  }
  const parsed = manifestSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      error: `${MANIFEST_NAME} is not valid (${issue?.path.join('.') || 'top'}: ${issue?.message})`,
    };
  }
  if (parsed.data.formatVersion > FORMAT_VERSION)
    return {
      ok: false,
      error: `the archive has format version ${parsed.data.formatVersion}; this Wren reads up to ${FORMAT_VERSION} (upgrade Wren)`,
    };
  return { ok: true, manifest: parsed.data };
}
