/**
 * Production install size: what `npm ci --omit=dev` puts on disk for a user, measured in a clean copy of
 * package.json + package-lock.json (never the working tree's node_modules, which holds the dev tools).
 *   npx tsx bench/install-size-bench.ts
 * Install scripts are skipped (`--ignore-scripts`) so the figure does not depend on whether a native addon was
 * downloaded prebuilt or compiled from source; the addon better-sqlite3 builds is reported beside it, measured
 * in the working tree. npm prefers its cache (`--prefer-offline`), so a warm cache measures without a network.
 * Measures, never asserts.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface InstallSize {
  totalMb: number;
  packages: number;
  /** better-sqlite3's native addon as built in this working tree (not part of totalMb). */
  nativeAddonMb: number;
  /** Largest packages by exclusive size (their own files, not their nested node_modules), in MB. */
  top: Array<{ name: string; mb: number }>;
}

const mb = (bytes: number) => Math.round(bytes / 104_857.6) / 10;

/** Disk usage of a tree in bytes (allocated blocks, as `du` counts), skipping `skip` folder names. */
function diskBytes(path: string, skip?: string): number {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return stat.blocks * 512;
  let total = stat.blocks * 512;
  for (const entry of readdirSync(path)) {
    if (entry === skip) continue;
    total += diskBytes(join(path, entry), skip);
  }
  return total;
}

/** Every installed package folder under a node_modules folder (scoped ones included), recursively. */
function packageFolders(modules: string, found: Array<{ name: string; dir: string }> = []) {
  if (!existsSync(modules)) return found;
  for (const entry of readdirSync(modules)) {
    if (entry.startsWith('.')) continue;
    const dir = join(modules, entry);
    if (entry.startsWith('@')) {
      for (const scoped of readdirSync(dir)) {
        found.push({ name: `${entry}/${scoped}`, dir: join(dir, scoped) });
        packageFolders(join(dir, scoped, 'node_modules'), found);
      }
    } else {
      found.push({ name: entry, dir });
      packageFolders(join(dir, 'node_modules'), found);
    }
  }
  return found;
}

export function measureInstallSize(top = 15): InstallSize {
  const dir = mkdtempSync(join(tmpdir(), 'wren-install-size-'));
  try {
    copyFileSync('package.json', join(dir, 'package.json'));
    copyFileSync('package-lock.json', join(dir, 'package-lock.json'));
    execFileSync(
      'npm',
      [
        'ci',
        '--omit=dev',
        '--ignore-scripts',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
      ],
      { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    const modules = join(dir, 'node_modules');
    const folders = packageFolders(modules);
    const byName = new Map<string, number>();
    for (const { name, dir: folder } of folders) {
      byName.set(name, (byName.get(name) ?? 0) + diskBytes(folder, 'node_modules'));
    }
    const addon = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';
    return {
      totalMb: mb(diskBytes(modules)),
      packages: folders.length,
      nativeAddonMb: existsSync(addon) ? mb(statSync(addon).size) : 0,
      top: [...byName]
        .sort((a, b) => b[1] - a[1])
        .slice(0, top)
        .map(([name, bytes]) => ({ name, mb: mb(bytes) })),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const size = measureInstallSize(25);
  console.log(
    `production install: ${size.totalMb} MB, ${size.packages} packages (+ ${size.nativeAddonMb} MB native addon)`,
  );
  for (const { name, mb: value } of size.top) console.log(`${String(value).padStart(7)} MB  ${name}`);
}
