import { ToolError } from '../../agent/tool.js';
import { parseIp } from '../../util/ip-address.js';

/** A network failure or refusal, worded for the model (what happened, and what it can do next). */
export class FetchError extends ToolError {
  override name = 'FetchError';
}

/** How a URL is named in messages: without credentials or query (which may hold API keys). */
export function displayUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** The port a URL connects to (its explicit port or the scheme's default). */
export function portOf(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/** The host exactly as written in `text` (before the URL parser normalised it), when it can be found. */
function writtenHost(text: string): string | undefined {
  const match = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)/i.exec(text.trim());
  return match?.[1]?.toLowerCase();
}

/**
 * Parses and checks a URL to fetch: absolute, http or https, no user:password part. An IP address written in
 * a disguised form (`2130706433`, `0x7f.1`, `0177.0.0.1`) is normalised by the URL parser; the returned
 * `disguised` note says how it was written, so a refusal can name both.
 * @throws FetchError for anything else, naming what is accepted.
 */
export function parseTargetUrl(text: string, base?: URL): { url: URL; disguised?: string } {
  let url: URL;
  try {
    url = base ? new URL(text, base) : new URL(text);
  } catch {
    throw new FetchError(
      `"${text.slice(0, 200)}" is not a valid absolute URL; give one like https://example.com/page.`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchError(`${url.protocol} URLs are not fetched; only http:// and https:// are supported.`);
  }
  if (url.username || url.password) {
    throw new FetchError(
      'URLs with a user name or password in them are not fetched; remove the user:password@ part.',
    );
  }
  const written = writtenHost(text);
  const disguised =
    written && written !== url.hostname && parseIp(url.hostname) && !parseIp(written) ? written : undefined;
  return disguised ? { url, disguised } : { url };
}
