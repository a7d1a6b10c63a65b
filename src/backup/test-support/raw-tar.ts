import { gzipSync } from 'node:zlib';

/** One entry of a hand-made tar: `type` is the header's type flag ('0' file, '1' hard link, '2' symlink, '5' folder). */
export interface RawEntry {
  name: string;
  type?: '0' | '1' | '2' | '5';
  body?: string | Buffer;
  linkname?: string;
}

function header(entry: RawEntry, size: number): Buffer {
  const block = Buffer.alloc(512);
  const put = (text: string, at: number, length: number) => block.write(text.slice(0, length), at, 'utf8');
  const octal = (value: number, length: number) => value.toString(8).padStart(length - 1, '0');
  put(entry.name, 0, 100);
  put(octal(0o644, 8), 100, 8);
  put(octal(0, 8), 108, 8);
  put(octal(0, 8), 116, 8);
  put(octal(size, 12), 124, 12);
  put(octal(0, 12), 136, 12);
  block.fill(' ', 148, 156);
  put(entry.type ?? '0', 156, 1);
  put(entry.linkname ?? '', 157, 100);
  put('ustar\u000000', 257, 8);
  let sum = 0;
  for (const byte of block) sum += byte;
  put(`${octal(sum, 7)}\u0000`, 148, 8);
  return block;
}

/**
 * A gzipped tar built byte by byte, so a test can write entries no well-behaved tool would (`../x`, an
 * absolute path, a link out of the folder). Test support only.
 */
export function rawTarGz(entries: readonly RawEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const body = Buffer.from(entry.body ?? '');
    parts.push(header(entry, entry.type === '0' || entry.type === undefined ? body.length : 0));
    if (entry.type === '0' || entry.type === undefined) {
      parts.push(body, Buffer.alloc((512 - (body.length % 512)) % 512));
    }
  }
  parts.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(parts));
}
