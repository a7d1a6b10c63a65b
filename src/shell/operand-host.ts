import { parseIp } from '../util/ip-address.js';

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
