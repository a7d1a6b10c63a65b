import { createHash } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { create } from 'tar';
import { type BackupManifest, MANIFEST_NAME, type ManifestFile } from './backup-manifest.js';

/** The SHA-256 of a file, hex, read as a stream. */
export async function hashFile(path: string): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { size, sha256: hash.digest('hex') };
}

/**
 * Which of `values` (secrets, at least 4 characters) occur in the file: read whole, as the files of a home
 * are small next to memory (the database copy included, which is read once).
 */
export function secretsIn(path: string, values: readonly string[]): boolean {
  const wanted = values.filter((value) => value.length >= 4);
  if (!wanted.length) return false;
  const bytes = readFileSync(path);
  return wanted.some((value) => bytes.includes(value));
}

/** The hashes of every staged file, for the manifest, in archive order. */
export async function describeStaged(staging: string, paths: readonly string[]): Promise<ManifestFile[]> {
  const files: ManifestFile[] = [];
  for (const path of paths) files.push({ path, ...(await hashFile(join(staging, path))) });
  return files;
}

/**
 * Writes the archive: a gzipped tar of `manifest` (first, as `wren-backup.json`) and the staged files it
 * lists, owners and times dropped (`portable`), to `dest` with mode 0600 (a home is private, secrets or not).
 * Written beside `dest` under a temporary name and renamed at the end, so `dest` is never a partial archive.
 * @returns the archive's size in bytes. @throws the file-system error (nothing is left at `dest`).
 */
export async function writeArchive(staging: string, manifest: BackupManifest, dest: string): Promise<number> {
  writeFileSync(join(staging, MANIFEST_NAME), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  mkdirSync(dirname(dest), { recursive: true, mode: 0o700 });
  const temp = `${dest}.${process.pid}.partial`;
  try {
    const pack = create({ gzip: true, cwd: staging, portable: true, strict: true }, [
      MANIFEST_NAME,
      ...manifest.files.map((file) => file.path),
    ]);
    await pipeline(pack, createWriteStream(temp, { mode: 0o600, flags: 'wx' }));
    renameSync(temp, dest);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  return statSync(dest).size;
}
