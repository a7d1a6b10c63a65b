import { describe, expect, it } from 'vitest';
import { AddressGuard, AddressRefusedError, type Resolve } from '../tools/net/address-guard.js';
import { AllowList, parseAllowEntry } from '../tools/net/allow-list.js';
import { blockedReason, formatIp, parseIp } from './ip-address.js';

describe('blockedReason', () => {
  const blocked: Array<[string, RegExp]> = [
    ['127.0.0.1', /loopback/],
    ['127.255.255.254', /loopback/],
    ['0.0.0.0', /unspecified/],
    ['10.1.2.3', /private/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.168.1.1', /private/],
    ['169.254.169.254', /link-local/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['100.127.255.255', /carrier-grade NAT/],
    ['224.0.0.1', /multicast/],
    ['239.255.255.250', /multicast/],
    ['255.255.255.255', /reserved/],
    ['240.0.0.1', /reserved/],
    ['192.0.2.10', /documentation/],
    ['198.18.0.1', /benchmarking/],
    ['::', /unspecified/],
    ['::1', /loopback/],
    ['0:0:0:0:0:0:0:1', /loopback/],
    ['::ffff:127.0.0.1', /IPv4-mapped loopback/],
    ['::ffff:7f00:1', /IPv4-mapped loopback/],
    ['::ffff:a9fe:a9fe', /IPv4-mapped link-local/],
    ['::ffff:10.0.0.1', /IPv4-mapped private/],
    ['64:ff9b::7f00:1', /NAT64 loopback/],
    ['2002:7f00:1::', /6to4 loopback/],
    ['2002:c0a8:101::1', /6to4 private/],
    ['::7f00:1', /IPv4-compatible/],
    ['fc00::1', /unique local/],
    ['fd12:3456::1', /unique local/],
    ['fe80::1', /link-local/],
    ['fe80::1%eth0', /link-local/],
    ['febf::1', /link-local/],
    ['fec0::1', /site-local/],
    ['ff02::1', /multicast/],
    ['2001:db8::1', /documentation/],
    ['[::1]', /loopback/],
    ['example.com', /not an IP address/],
    ['', /not an IP address/],
  ];
  for (const [address, reason] of blocked) {
    it(`refuses ${address || '(empty)'}`, () => {
      expect(blockedReason(address)).toMatch(reason);
    });
  }

  const allowed = [
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '169.253.0.1',
    '11.0.0.1',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ];
  for (const address of allowed) {
    it(`allows public ${address}`, () => {
      expect(blockedReason(address)).toBeUndefined();
    });
  }
});

describe('parseIp', () => {
  it('parses IPv4, IPv6 and embedded forms; rejects junk and non-decimal IPv4', () => {
    expect(formatIp(parseIp('192.168.0.1')!)).toBe('192.168.0.1');
    expect(formatIp(parseIp('::ffff:1.2.3.4')!)).toBe('0:0:0:0:0:ffff:102:304');
    expect(formatIp(parseIp('1::')!)).toBe('1:0:0:0:0:0:0:0');
    for (const junk of [
      '1.2.3',
      '0x7f.0.0.1',
      '2130706433',
      '1.2.3.256',
      ':::',
      '1:2:3:4:5:6:7:8:9',
      'g::1',
    ]) {
      expect(parseIp(junk), junk).toBeUndefined();
    }
  });
});

describe('allow list', () => {
  it('parses every accepted form and explains bad entries', () => {
    for (const good of [
      'intranet.lan',
      'localhost:8080',
      '*.lan',
      '10.0.0.0/8',
      'fd00::/8',
      '[::1]:8080',
      '192.168.1.5',
    ]) {
      expect(typeof parseAllowEntry(good), good).toBe('object');
    }
    expect(parseAllowEntry('10.0.0.0/33')).toMatch(/prefix longer than 32/);
    expect(parseAllowEntry('host:99999')).toMatch(/invalid port/);
    expect(parseAllowEntry('not a host')).toMatch(/not a host name/);
    expect(parseAllowEntry('foo/8')).toMatch(/not an IP address/);
    expect(parseAllowEntry('*.')).toMatch(/wildcard/);
    expect(() => AllowList.parse(['ok.lan', 'bad host'])).toThrow(/bad host/);
  });

  it('matches host, host:port, wildcard, address and CIDR entries', () => {
    const list = AllowList.parse([
      'intranet.lan',
      'localhost:8080',
      '*.home.arpa',
      '10.0.0.0/8',
      '[::1]:9000',
    ]);
    expect(list.admits({ host: 'INTRANET.lan.', port: 1, address: '192.168.1.2' })).toBe(true);
    expect(list.admits({ host: 'localhost', port: 8080, address: '127.0.0.1' })).toBe(true);
    expect(list.admits({ host: 'localhost', port: 8081, address: '127.0.0.1' })).toBe(false);
    expect(list.admits({ host: 'nas.home.arpa', port: 80, address: '192.168.1.9' })).toBe(true);
    expect(list.admits({ host: 'home.arpa.evil.com', port: 80, address: '192.168.1.9' })).toBe(false);
    expect(list.admits({ host: 'anything', port: 80, address: '10.9.8.7' })).toBe(true);
    expect(list.admits({ host: '[::1]', port: 9000, address: '::1' })).toBe(true);
    expect(list.admits({ host: '[::1]', port: 9001, address: '::1' })).toBe(false);
    expect(list.admits({ host: 'other', port: 80, address: '127.0.0.1' })).toBe(false);
  });
});

describe('AddressGuard', () => {
  const guard = new AddressGuard(AllowList.parse(['127.0.0.1:7000']));
  const table: Record<string, string[]> = {
    'public.test': ['93.184.216.34'],
    'mixed.test': ['93.184.216.34', '10.0.0.1'],
    'metadata.test': ['169.254.169.254'],
    'v6.test': ['::1'],
  };
  const resolve: Resolve = async (host) => {
    const answers = table[host];
    if (!answers) throw new Error('ENOTFOUND');
    return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

  it('passes public answers and allow-listed private ones', async () => {
    await expect(guard.resolveChecked(resolve, 'public.test', 443)).resolves.toEqual([
      { address: '93.184.216.34', family: 4 },
    ]);
    await expect(guard.resolveChecked(resolve, '127.0.0.1', 7000)).resolves.toHaveLength(1);
  });

  it('refuses any private answer, unresolvable names and private literals, naming the config key', async () => {
    for (const [host, port, pattern] of [
      ['mixed.test', 80, /10\.0\.0\.1.*private/],
      ['metadata.test', 80, /169\.254\.169\.254.*link-local/],
      ['v6.test', 80, /loopback/],
      ['127.0.0.1', 7001, /loopback/],
      ['[::1]', 7000, /loopback/],
      ['nowhere.test', 80, /could not be resolved/],
    ] as const) {
      const attempt = guard.resolveChecked(resolve, host, port);
      await expect(attempt, host).rejects.toBeInstanceOf(AddressRefusedError);
      await expect(guard.resolveChecked(resolve, host, port), host).rejects.toThrow(pattern);
    }
    await expect(guard.resolveChecked(resolve, 'metadata.test', 80)).rejects.toThrow(/web\.fetch\.allow/);
  });
});
