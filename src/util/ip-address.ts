import { isIPv4, isIPv6 } from 'node:net';

/** An IP address as bytes: 4 for IPv4, 16 for IPv6. */
export type IpBytes = Uint8Array;

/** Parses a strict dotted IPv4 address (`a.b.c.d`, decimal) into 4 bytes, or undefined. */
function parseIpv4(text: string): IpBytes | undefined {
  if (!isIPv4(text)) return undefined;
  return Uint8Array.from(text.split('.').map(Number));
}

/** Parses an IPv6 address (compressed, with an optional dotted IPv4 tail and zone id) into 16 bytes. */
function parseIpv6(input: string): IpBytes | undefined {
  const text = input.replace(/%.*$/, '');
  if (!isIPv6(text)) return undefined;
  const bytes = new Uint8Array(16);
  const [head = '', tail] = text.split('::') as [string, string | undefined];
  const groups = (part: string): number[] => {
    if (part === '') return [];
    const out: number[] = [];
    for (const piece of part.split(':')) {
      if (piece.includes('.')) {
        const v4 = parseIpv4(piece);
        if (!v4) return [Number.NaN];
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else out.push(Number.parseInt(piece, 16));
    }
    return out;
  };
  const front = groups(head);
  const back = tail === undefined ? [] : groups(tail);
  const all = [...front, ...new Array(8 - front.length - back.length).fill(0), ...back];
  if (all.length !== 8 || all.some((group) => Number.isNaN(group))) return undefined;
  all.forEach((group, index) => {
    bytes[index * 2] = group >> 8;
    bytes[index * 2 + 1] = group & 0xff;
  });
  return bytes;
}

/** Parses an IPv4 or IPv6 address (IPv6 may be in brackets); undefined when `text` is not an IP address. */
export function parseIp(text: string): IpBytes | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  return parseIpv4(bare) ?? parseIpv6(bare);
}

/** Whether the first `bits` bits of `address` equal those of `network` (same family). */
export function inPrefix(address: IpBytes, network: IpBytes, bits: number): boolean {
  if (address.length !== network.length) return false;
  for (let bit = 0; bit < bits; bit++) {
    const index = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    if ((address[index]! & mask) !== (network[index]! & mask)) return false;
  }
  return true;
}

/** Formats bytes back into the usual text form (IPv6 uncompressed but lowercase, e.g. `0:0:0:0:0:0:0:1`). */
export function formatIp(bytes: IpBytes): string {
  if (bytes.length === 4) return bytes.join('.');
  const groups: string[] = [];
  for (let index = 0; index < 16; index += 2)
    groups.push(((bytes[index]! << 8) | bytes[index + 1]!).toString(16));
  return groups.join(':');
}

interface Range {
  network: IpBytes;
  bits: number;
  kind: string;
}

const range = (cidr: string, kind: string): Range => {
  const [address = '', bits = ''] = cidr.split('/');
  return { network: parseIp(address)!, bits: Number(bits), kind };
};

const IPV4_BLOCKED: Range[] = [
  range('0.0.0.0/8', 'unspecified ("this network")'),
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'carrier-grade NAT (shared)'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local (cloud metadata)'),
  range('172.16.0.0/12', 'private'),
  range('192.0.0.0/24', 'IETF protocol assignment'),
  range('192.0.2.0/24', 'documentation'),
  range('192.88.99.0/24', '6to4 relay'),
  range('192.168.0.0/16', 'private'),
  range('198.18.0.0/15', 'benchmarking'),
  range('198.51.100.0/24', 'documentation'),
  range('203.0.113.0/24', 'documentation'),
  range('224.0.0.0/4', 'multicast'),
  range('240.0.0.0/4', 'reserved (includes broadcast)'),
];

const IPV6_BLOCKED: Range[] = [
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  range('::/96', 'IPv4-compatible (deprecated)'),
  range('64:ff9b:1::/48', 'local-use NAT64'),
  range('100::/64', 'discard-only'),
  range('2001:db8::/32', 'documentation'),
  range('fc00::/7', 'unique local (private)'),
  range('fe80::/10', 'link-local'),
  range('fec0::/10', 'site-local (deprecated)'),
  range('ff00::/8', 'multicast'),
];

/** IPv6 forms that carry an IPv4 address inside: the embedded address is checked instead. */
const IPV6_EMBEDDING: Array<{ range: Range; offset: number }> = [
  { range: range('::ffff:0:0/96', 'IPv4-mapped'), offset: 12 },
  { range: range('64:ff9b::/96', 'NAT64'), offset: 12 },
  { range: range('2002::/16', '6to4'), offset: 2 },
];

/**
 * Why connecting to `address` could reach something private, or undefined for a public address. Covers
 * loopback, private (RFC 1918, IPv6 ULA), link-local (incl. 169.254.169.254), CGNAT, multicast, unspecified,
 * reserved and documentation ranges; IPv4 inside IPv6 (`::ffff:` mapped, NAT64, 6to4) is judged by the IPv4
 * address it carries. Text that is not an IP address is reported as such (never treated as public).
 */
export function blockedReason(address: string | IpBytes): string | undefined {
  const bytes = typeof address === 'string' ? parseIp(address) : address;
  if (!bytes) return 'not an IP address';
  if (bytes.length === 4) return IPV4_BLOCKED.find((r) => inPrefix(bytes, r.network, r.bits))?.kind;
  for (const { range: embedding, offset } of IPV6_EMBEDDING) {
    if (inPrefix(bytes, embedding.network, embedding.bits)) {
      const inner = blockedReason(bytes.slice(offset, offset + 4));
      return inner ? `${embedding.kind} ${inner}` : undefined;
    }
  }
  return IPV6_BLOCKED.find((r) => inPrefix(bytes, r.network, r.bits))?.kind;
}
