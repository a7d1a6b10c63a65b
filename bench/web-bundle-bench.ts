import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

export interface WebBundle {
  /** What a first visit downloads (index.html, its scripts and styles), raw and gzipped, in KB. */
  firstLoadKb: number;
  firstLoadGzipKb: number;
  /** Every file of the build (icons, manifest, service worker included). */
  totalKb: number;
  files: number;
}

const kb = (bytes: number) => Math.round(bytes / 102.4) / 10;

/** Sizes of the built web app in dist/web (made by `npm run build`, which the bench runs first). */
export function measureWebBundle(root = 'dist/web'): WebBundle {
  const html = readFileSync(join(root, 'index.html'), 'utf8');
  const linked = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.(?:js|css))"/g)].map(
    (match) => match[1]!,
  );
  let raw = Buffer.byteLength(html);
  let gzip = gzipSync(html, { level: 9 }).length;
  for (const file of linked) {
    const body = readFileSync(join(root, file));
    raw += body.length;
    gzip += gzipSync(body, { level: 9 }).length;
  }
  let total = 0;
  let files = 0;
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else {
        total += statSync(path).size;
        files++;
      }
    }
  };
  walk(root);
  return { firstLoadKb: kb(raw), firstLoadGzipKb: kb(gzip), totalKb: kb(total), files };
}
