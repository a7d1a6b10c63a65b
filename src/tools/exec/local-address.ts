import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { blockedReason, parseIp } from '../../util/ip-address.js';

/** Names that mean this machine whatever /etc/hosts says (`*.localhost` resolves to loopback, RFC 6761). */
const LOOPBACK_NAMES =
  /^(localhost|localhost\.localdomain|localhost4|localhost4\.localdomain4|localhost6|localhost6\.localdomain6|ip6-localhost|ip6-loopback|.+\.localhost)$/;

/** The kinds of blockedReason that reach this machine or the owner's own network (not public, not multicast). */
const LOCAL_KINDS = /loopback|private|link-local|carrier-grade|site-local|unspecified/;

/**
 * The host names /etc/hosts (as `hostsText`) maps to a local address, and this machine's own name (Debian
 * maps it to 127.0.1.1): names a command can reach loopback by without any DNS lookup. Lower-case. Never
 * throws; an unreadable file gives only the machine's name.
 */
export function localHostNames(
  hostsText: string = readHostsFile(),
  machine: string = hostname(),
): ReadonlySet<string> {
  const names = new Set<string>();
  if (machine) names.add(machine.toLowerCase());
  for (const line of hostsText.split('\n')) {
    const [address, ...aliases] = line.replace(/#.*/, '').trim().split(/\s+/);
    if (!address || !isLocalIp(address)) continue;
    for (const alias of aliases) names.add(alias.toLowerCase().replace(/\.$/, ''));
  }
  return names;
}

function readHostsFile(): string {
  try {
    return readFileSync('/etc/hosts', 'utf8');
  } catch {
    return '';
  }
}

/** Whether an IP address (bytes or text) is loopback, private, link-local, CGNAT or the unspecified 0.0.0.0/::. */
function isLocalIp(address: string | Uint8Array): boolean {
  const bytes = typeof address === 'string' ? parseIp(address) : address;
  if (!bytes) return false;
  // 0.0.0.0 connects to this machine; the rest of 0/8 cannot be connected to at all.
  if (bytes.length === 4 && bytes[0] === 0) return bytes.every((byte) => byte === 0);
  const kind = blockedReason(bytes);
  return kind !== undefined && LOCAL_KINDS.test(kind);
}

/**
 * The IP address a host as written stands for, the way the C library reads it (`127.1`, `0x7f000001`,
 * `2130706433`, `0177.0.0.1`, `[::ffff:127.0.0.1]`, `::1%lo`), through the URL parser that normalises the
 * same forms; undefined for a name.
 */
function addressOf(host: string): Uint8Array | undefined {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare.includes(':')) return parseIp(bare);
  if (!/^[0-9a-fx.]+$/i.test(bare)) return undefined;
  try {
    return parseIp(new URL(`http://${bare}/`).hostname);
  } catch {
    return undefined;
  }
}

/**
 * Whether connecting to `host` (a name or an address in any spelling, as written in a command) reaches this
 * machine or a private network: loopback (127/8, ::1, `localhost`, `localhost.`, `*.localhost`,
 * `ip6-localhost`, names /etc/hosts maps to one), 0.0.0.0 and ::, private (10/8, 172.16/12, 192.168/16,
 * fc00::/7), link-local and cloud metadata (169.254/16, fe80::/10), CGNAT (100.64/10), IPv4 inside IPv6. A
 * name that only DNS can answer is not judged (exec cannot check at connect time; the sandbox is for that).
 */
export function isLocalHost(host: string, localNames: ReadonlySet<string>): boolean {
  let text = host.trim().toLowerCase();
  try {
    text = decodeURIComponent(text);
  } catch {
    // Not percent-encoded after all: judged as written.
  }
  text = text.replace(/\.$/, '');
  if (text === '') return false;
  // A unix socket (`curl --unix-socket`, `nc -U`, socat's UNIX-CONNECT:) is a service on this machine.
  if (text.startsWith('unix:')) return true;
  if (LOOPBACK_NAMES.test(text) || localNames.has(text)) return true;
  const bytes = addressOf(text);
  return bytes !== undefined && isLocalIp(bytes);
}
