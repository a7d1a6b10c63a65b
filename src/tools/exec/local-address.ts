import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { blockedReason, parseIp } from '../net/ip-address.js';

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

/**
 * The host an operand of a network client names, when it names one without a scheme: `host`, `host:port`,
 * `host/path`, `user@host`, `user@host:path`, `[::1]:port`, `@server` (dig), `--host=VALUE`. A bare number
 * below 2^24 (a port, a count, a timeout) is not taken for an address, though the C library would read `80`
 * as 0.0.0.80. Undefined for options and empty text.
 */
export function operandHost(text: string): string | undefined {
  let value = text;
  const option = /^--?[\w-]+=(.*)$/s.exec(value);
  if (option) value = option[1]!;
  else if (value.startsWith('-')) return undefined;
  if (/^(unix|unix-connect|unix-client|abstract-connect|abstract-client):/i.test(value))
    return `unix:${value.slice(value.indexOf(':') + 1)}`;
  // socat's `TCP:host:port`, `OPENSSL:host:port` …
  value = value.replace(/^(tcp[46]?|udp[46]?|sctp|dccp|openssl|ssl|proxy)(-connect)?:/i, '');
  value = value.replace(/^@/, '').replace(/^[^@/\s]*@/, '');
  const bracketed = /^\[([^\]]+)\]/.exec(value);
  if (bracketed) return `[${bracketed[1]}]`;
  // A bare IPv6 address (`::1`, `fe80::1%eth0`) has more than one colon.
  if ((value.match(/:/g) ?? []).length > 1 && parseIp(value.replace(/%.*$/, ''))) return value;
  const host = value.split(/[/:?#]/)[0] ?? '';
  if (host === '') return undefined;
  // `0:11434` is 0.0.0.0 with a port; a number alone is a port or a count.
  if (/^(0x[0-9a-f]+|\d+)$/i.test(host) && Number(host) < 2 ** 24 && !(host === '0' && value !== '0'))
    return undefined;
  return host;
}

/** Long options of network clients that take a number (`--max-time 10.5` is a time, not 10.0.0.5). */
const NUMBER_OPTIONS =
  /^--(max-time|connect-timeout|retry|retry-delay|retry-max-time|speed-time|speed-limit|limit-rate|max-filesize|keepalive-time|expect100-timeout|timeout|tries|wait|waitretry|read-timeout|dns-timeout|interval|count|deadline)$/;
/** Short options that take a number, by program (curl's `-s` takes none, so `curl -s 127.1` is an address). */
const SHORT_NUMBER_OPTIONS: Record<string, RegExp> = {
  curl: /^-[myY]$/,
  wget: /^-[Ttw]$/,
  ping: /^-[ciWwstl]$/,
  ping6: /^-[ciWwstl]$/,
  nc: /^-[wiqp]$/,
};

/** Whether `option` (the argument before a value) takes a number in `program`. */
export function takesNumber(program: string, option: string | undefined): boolean {
  if (!option) return false;
  const short = SHORT_NUMBER_OPTIONS[/^(nc|ncat|netcat)([.-].*)?$/.test(program) ? 'nc' : program];
  return NUMBER_OPTIONS.test(option) || short?.test(option) === true;
}

/** Options whose value is a unix socket to connect to (curl's, netcat's `-U`). */
export function socketOption(program: string, option: string | undefined): boolean {
  if (option === '--unix-socket' || option === '--abstract-unix-socket') return true;
  return option === '-U' && /^(nc|ncat|netcat)([.-].*)?$/.test(program);
}

/** Clients that connect to a service on this machine unless told another host (`-h`, `--host`, a URL). */
const LOCAL_BY_DEFAULT = new Set([
  ...['redis-cli', 'valkey-cli', 'psql', 'pg_dump', 'pg_isready', 'mysql', 'mariadb', 'mysqldump'],
  ...['mongo', 'mongosh', 'etcdctl', 'ollama'],
]);

/**
 * Whether running `program` with `args` reaches its default local server (`redis-cli` → 127.0.0.1:6379,
 * `ollama list` → 127.0.0.1:11434, `psql` → the local socket): no host option and no URL among the args,
 * and more than `--version`/`--help`.
 */
export function reachesDefaultLocal(program: string, args: readonly string[]): boolean {
  if (!LOCAL_BY_DEFAULT.has(program)) return false;
  if (args.some((arg) => /^(--?(version|help)|-V|-\?|help)$/.test(arg))) return false;
  return !args.some((arg) => /^(-h|-u|-H|--host|--uri|--url|--endpoints)(=|$)|:\/\//.test(arg));
}
