import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { extract, list, type ReadEntry } from 'tar';
import { ArchiveError } from './archive-error.js';
import {
  type BackupManifest,
  DATABASE_NAME,
  MANIFEST_NAME,
  parseManifest,
  safeArchivePath,
} from './backup-manifest.js';
import { hashFile } from './write-archive.js';

export { ArchiveError };

const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

interface Seen {
  size: number;
  sha256: string;
}

/** Refuses an entry that is not a plain file or folder at a safe relative path. */
function checkEntry(entry: ReadEntry, seen: Map<string, Seen>): string {
  const path = entry.path.replace(/\/$/, '');
  if (!safeArchivePath(entry.path))
    throw new ArchiveError(`the archive holds an entry outside its folder (${JSON.stringify(entry.path)})`);
  if (entry.type !== 'File' && entry.type !== 'OldFile' && entry.type !== 'Directory')
    throw new ArchiveError(
      `the archive holds ${entry.type === 'SymbolicLink' || entry.type === 'Link' ? 'a link' : `a ${entry.type} entry`} ` +
        `(${JSON.stringify(entry.path)}${entry.linkpath ? ` → ${JSON.stringify(entry.linkpath)}` : ''}); a Wren backup holds only files`,
    );
  if (entry.type !== 'Directory' && seen.has(path)) throw new ArchiveError(`the archive holds ${path} twice`);
  return path;
}

/** Compares what the archive holds with what its manifest lists, file by file. */
function matchManifest(manifest: BackupManifest, seen: Map<string, Seen>): void {
  const listed = new Set<string>();
  for (const file of manifest.files) {
    listed.add(file.path);
    const found = seen.get(file.path);
    if (!found) throw new ArchiveError(`${file.path} is listed in the manifest but missing from the archive`);
    if (found.size !== file.size)
      throw new ArchiveError(`${file.path} has ${found.size} bytes, the manifest says ${file.size}`);
    if (found.sha256 !== file.sha256)
      throw new ArchiveError(`${file.path} does not match its SHA-256 in the manifest (changed or damaged)`);
  }
  for (const path of seen.keys())
    if (!listed.has(path)) throw new ArchiveError(`${path} is in the archive but not in its manifest`);
  if (!listed.has(DATABASE_NAME)) throw new ArchiveError(`the archive holds no database (${DATABASE_NAME})`);
}

/**
 * Reads the whole archive without writing anything: gzip and tar must be intact to the end, every entry a
 * plain file or folder at a safe relative path (no absolute path, no `..`, no link of any kind), the manifest
 * present and valid, and every file's size and SHA-256 as it says, with nothing unlisted.
 * @returns the manifest. @throws ArchiveError saying what is wrong.
 */
export async function verifyArchive(file: string): Promise<BackupManifest> {
  const seen = new Map<string, Seen>();
  let manifestText: string | undefined;
  let problem: unknown;
  const onReadEntry = (entry: ReadEntry) => {
    let path: string;
    try {
      path = checkEntry(entry, seen);
    } catch (error) {
      problem ??= error;
      entry.resume();
      return;
    }
    if (entry.type === 'Directory') return;
    const hash = createHash('sha256');
    const chunks: Buffer[] = [];
    let size = 0;
    entry.on('data', (chunk: Buffer) => {
      hash.update(chunk);
      size += chunk.length;
      if (path === MANIFEST_NAME && size <= MAX_MANIFEST_BYTES) chunks.push(chunk);
    });
    entry.on('end', () => {
      if (path === MANIFEST_NAME) manifestText = Buffer.concat(chunks).toString('utf8');
      else seen.set(path, { size, sha256: hash.digest('hex') });
    });
  };
  try {
    await list({ file, strict: true, onReadEntry });
  } catch (error) {
    throw new ArchiveError(`the archive is damaged or truncated (${(error as Error).message})`);
  }
  if (problem) throw problem;
  if (seen.size === 0 && manifestText === undefined)
    throw new ArchiveError('the file is not a Wren backup (no entries found; is it a .tar.gz?)');
  if (manifestText === undefined)
    throw new ArchiveError(`the archive has no ${MANIFEST_NAME}: not a Wren backup`);
  const parsed = parseManifest(manifestText);
  if (!parsed.ok) throw new ArchiveError(parsed.error);
  matchManifest(parsed.manifest, seen);
  return parsed.manifest;
}

/** Every regular file under `dir` (relative, `/`-separated); anything else under it is refused. */
function walkExtracted(dir: string, prefix = ''): string[] {
  const files: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const info = lstatSync(path);
    if (info.isDirectory()) {
      chmodSync(path, 0o700);
      files.push(...walkExtracted(path, `${prefix}${name}/`));
    } else if (info.isFile()) {
      chmodSync(path, 0o600);
      files.push(`${prefix}${name}`);
    } else throw new ArchiveError(`extracting made ${prefix}${name}, which is not a plain file`);
  }
  return files;
}

/**
 * Unpacks a verified archive into the empty folder `dir` (plain files and folders only, nothing outside it,
 * owners not taken from the archive, files 0600 and folders 0700) and checks the unpacked files against the
 * manifest again, so a file swapped since `verifyArchive` is caught too. The manifest file is removed.
 * @throws ArchiveError when anything differs.
 */
export async function extractArchive(file: string, dir: string, manifest: BackupManifest): Promise<void> {
  try {
    await extract({
      file,
      cwd: dir,
      strict: true,
      preserveOwner: false,
      filter: (path, entry) => {
        const type = (entry as ReadEntry).type;
        return safeArchivePath(path) && (type === 'File' || type === 'OldFile' || type === 'Directory');
      },
    });
  } catch (error) {
    throw new ArchiveError(`the archive could not be unpacked (${(error as Error).message})`);
  }
  const seen = new Map<string, Seen>();
  for (const path of walkExtracted(dir)) {
    if (path === MANIFEST_NAME) continue;
    seen.set(path, await hashFile(join(dir, path)));
  }
  matchManifest(manifest, seen);
  rmSync(join(dir, MANIFEST_NAME), { force: true });
}
