import type { ImagePart } from '../llm/types.js';

/** The media types a model takes as images (a platform's declared content type, checked against this). */
export const IMAGE_MEDIA_TYPES: ReadonlySet<string> = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
]);

/**
 * The image type of `bytes` by its signature, for platforms that serve images without a trustworthy content
 * type (Feishu, WeCom); undefined for anything that is not PNG, JPEG, GIF or WebP.
 */
export function imageType(bytes: Buffer): ImagePart['mediaType'] | undefined {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.subarray(0, 4).toString('latin1') === 'GIF8') return 'image/gif';
  if (
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' &&
    bytes.subarray(8, 12).toString('latin1') === 'WEBP'
  )
    return 'image/webp';
  return undefined;
}
