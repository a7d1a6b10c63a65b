import { revealHiddenCharacters } from '../../util/hidden-characters.js';
import type { SafeResponse } from '../net/safe-fetch.js';

/** A response turned into text for the model. */
export interface RenderedPage {
  kind: 'html' | 'json' | 'text' | 'binary';
  title?: string;
  text: string;
}

const BINARY_PREFIXES = ['image/', 'audio/', 'video/', 'font/', 'model/'];
const BINARY_TYPES = new Set([
  'application/octet-stream',
  'application/pdf',
  'application/zip',
  'application/gzip',
  'application/x-gzip',
  'application/x-tar',
  'application/x-7z-compressed',
  'application/x-rar-compressed',
  'application/vnd.ms-excel',
  'application/msword',
  'application/wasm',
]);
const TEXT_APPLICATION_TYPES = new Set([
  'application/xml',
  'application/javascript',
  'application/ecmascript',
  'application/x-javascript',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/x-sh',
  'application/sql',
  'application/graphql',
  'application/x-ndjson',
]);

/** Whether a media type is binary for sure, so the body need not be downloaded at all. */
export function isBinaryType(contentType: string): boolean {
  return (
    BINARY_PREFIXES.some((prefix) => contentType.startsWith(prefix)) ||
    BINARY_TYPES.has(contentType) ||
    contentType.startsWith('application/vnd.openxmlformats')
  );
}

function kindOf(contentType: string, body: Buffer): RenderedPage['kind'] {
  if (contentType === 'text/html' || contentType === 'application/xhtml+xml') return 'html';
  if (contentType === 'application/json' || contentType === 'text/json' || contentType.endsWith('+json')) {
    return 'json';
  }
  if (isBinaryType(contentType)) return 'binary';
  const sample = body.subarray(0, 4096);
  if (sample.includes(0)) return 'binary';
  if (
    contentType.startsWith('text/') ||
    contentType.endsWith('+xml') ||
    TEXT_APPLICATION_TYPES.has(contentType)
  ) {
    return 'text';
  }
  const head = sample.toString('latin1').trimStart().slice(0, 100).toLowerCase();
  if (head.startsWith('<!doctype html') || head.startsWith('<html')) return 'html';
  if (head.startsWith('{') || head.startsWith('[')) return 'json';
  // An unknown application/* type without NUL bytes in its first 4 KB is shown as text only if it decodes.
  return contentType === '' || isMostlyText(sample) ? 'text' : 'binary';
}

function isMostlyText(sample: Buffer): boolean {
  const text = sample.toString('utf8');
  const odd = text.match(/[\uFFFD\u0001-\u0008\u000E-\u001F]/g)?.length ?? 0;
  return odd <= text.length / 100;
}

function decode(body: Buffer, charset: string | undefined, kind: RenderedPage['kind']): string {
  let label = charset;
  if (!label && kind === 'html') {
    const head = body.subarray(0, 2048).toString('latin1');
    label = /<meta[^>]+charset\s*=\s*["']?([\w-]+)/i.exec(head)?.[1]?.toLowerCase();
  }
  try {
    return new TextDecoder(label ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

/** `512 bytes`, `3.2 KB`, `5.0 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * Renders a response for the model: HTML as readable Markdown, JSON and text as they are, anything else
 * described in one line (type and size) instead of dumped. Hidden characters in the text and the title are
 * made visible (see revealHiddenCharacters): a page must not carry instructions the owner cannot see.
 * Never throws.
 */
export async function renderResponse(response: SafeResponse): Promise<RenderedPage> {
  const page = await renderVisible(response);
  const title = page.title?.replace(/\s+/g, ' ').trim();
  return {
    kind: page.kind,
    ...(title ? { title: revealHiddenCharacters(title, { singleLine: true }) } : {}),
    text: revealHiddenCharacters(page.text),
  };
}

async function renderVisible(response: SafeResponse): Promise<RenderedPage> {
  const skipped = response.body.length === 0 && isBinaryType(response.contentType);
  const kind = skipped ? 'binary' : kindOf(response.contentType, response.body);
  if (kind === 'binary') {
    const size =
      response.declaredLength ?? (response.truncated || skipped ? undefined : response.body.length);
    const type = response.contentType || 'unknown type';
    const name = response.headers['content-disposition']?.match(/filename="?([^";]+)"?/)?.[1];
    return {
      kind,
      text: `[Binary content (${type}${size !== undefined ? `, ${formatBytes(size)}` : ''}${name ? `, file name "${name}"` : ''}); web_fetch shows only text, HTML and JSON.]`,
    };
  }
  const text = decode(response.body, response.charset, kind);
  if (kind !== 'html') return { kind, text };
  // linkedom, Readability and turndown load on the first HTML page, not at start-up.
  const { htmlToMarkdown } = await import('./html-to-markdown.js');
  const page = htmlToMarkdown(text, response.url.href);
  return { kind, ...(page.title ? { title: page.title } : {}), text: page.markdown };
}
