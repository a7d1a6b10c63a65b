import { type IpBytes, inPrefix, parseIp } from '../../util/ip-address.js';

/** One parsed `web.fetch.allow` entry. */
export type AllowEntry =
  | { kind: 'host'; host: string; port?: number }
  | { kind: 'suffix'; suffix: string }
  | { kind: 'network'; network: IpBytes; bits: number; port?: number };

/** Lowercase, without brackets or a trailing dot: how host names are compared. */
export function normalizeHost(host: string): string {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return bare.toLowerCase().replace(/\.$/, '');
}

const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,62}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,62}[a-z0-9_])?)*$/;

function parsePort(text: string): number | undefined {
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : undefined;
}

/** Splits `host:port` / `[v6]:port` / `host` / `v6`; undefined when the port part is malformed. */
function splitHostPort(text: string): { host: string; port?: number } | undefined {
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(text);
  if (bracketed) {
    if (bracketed[2] === undefined) return { host: bracketed[1]! };
    const port = parsePort(bracketed[2]);
    return port === undefined ? undefined : { host: bracketed[1]!, port };
  }
  const colons = text.split(':').length - 1;
  if (colons !== 1) return { host: text };
  const [host = '', portText = ''] = text.split(':');
  const port = parsePort(portText);
  return port === undefined ? undefined : { host, port };
}

/**
 * Parses one allow-list entry: a host name (`intranet.lan`), a wildcard (`*.lan`), `host:port`, an IP
 * address (`192.168.1.5`, `[::1]:8080`) or a CIDR block (`10.0.0.0/8`, `fd00::/8`).
 * @returns the entry, or a message saying what is wrong with it.
 */
export function parseAllowEntry(raw: string): AllowEntry | string {
  const text = raw.trim().toLowerCase();
  const cidr = /^([^/]+)\/(\d{1,3})$/.exec(text);
  if (cidr) {
    const network = parseIp(cidr[1]!);
    const bits = Number(cidr[2]);
    if (!network) return `"${raw}" is not a CIDR block: ${cidr[1]} is not an IP address`;
    if (bits > network.length * 8) return `"${raw}" has a prefix longer than ${network.length * 8} bits`;
    return { kind: 'network', network, bits };
  }
  if (text.startsWith('*.')) {
    const suffix = text.slice(2);
    return HOST_NAME.test(suffix)
      ? { kind: 'suffix', suffix }
      : `"${raw}" is not a valid wildcard; write it as *.example.com`;
  }
  const split = splitHostPort(text);
  if (!split) return `"${raw}" has an invalid port; write host:port with a port from 1 to 65535`;
  const address = parseIp(split.host);
  if (address) {
    return { kind: 'network', network: address, bits: address.length * 8, ...portOf(split.port) };
  }
  const host = normalizeHost(split.host);
  if (!HOST_NAME.test(host)) {
    return `"${raw}" is not a host name, host:port, IP address or CIDR block (e.g. intranet.lan, localhost:8080, 10.0.0.0/8)`;
  }
  return { kind: 'host', host, ...portOf(split.port) };
}

const portOf = (port: number | undefined) => (port === undefined ? {} : { port });

/** What a connection is about to reach: the URL's host name, the port, and the address it resolved to. */
export interface Destination {
  host: string;
  port: number;
  address?: string;
}

/** Whether one entry admits a destination (a port, when given, must match as well). */
function matches(entry: AllowEntry, destination: Destination): boolean {
  const host = normalizeHost(destination.host);
  if (entry.kind === 'suffix') return host === entry.suffix || host.endsWith(`.${entry.suffix}`);
  if (entry.port !== undefined && entry.port !== destination.port) return false;
  if (entry.kind === 'host') return host === entry.host;
  const candidates = [destination.address, host].flatMap((text) => {
    const bytes = text === undefined ? undefined : parseIp(text);
    return bytes ? [bytes] : [];
  });
  return candidates.some((bytes) => inPrefix(bytes, entry.network, entry.bits));
}

/** The parsed allow list: private destinations it admits may be fetched. */
export class AllowList {
  constructor(readonly entries: readonly AllowEntry[]) {}

  /**
   * Parses entries; invalid ones throw.
   * @throws Error naming the bad entry and the accepted forms.
   */
  static parse(raw: readonly string[]): AllowList {
    return new AllowList(
      raw.map((text) => {
        const entry = parseAllowEntry(text);
        if (typeof entry === 'string') throw new Error(entry);
        return entry;
      }),
    );
  }

  admits(destination: Destination): boolean {
    return this.entries.some((entry) => matches(entry, destination));
  }
}
