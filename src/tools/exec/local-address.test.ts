import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolContext } from '../../../test/support/tool-context.js';
import type { ExecConfig } from '../tools-config.js';
import { createExecTool } from './exec-tool.js';
import { isLocalHost, localHostNames } from './local-address.js';

let base: string;
let workspace: string;
const config = (overrides: Partial<ExecConfig> = {}): ExecConfig => ({
  enabled: true,
  timeout: 60,
  maxTimeout: 600,
  sandbox: 'none',
  envAllow: [],
  outputCap: 10_000,
  logCapMb: 10,
  ...overrides,
});
// /etc/hosts as the machine `box` has it: its own name on 127.0.1.1, a LAN printer, a public mirror.
const names = localHostNames(
  '127.0.0.1 localhost\n127.0.1.1 box.home box\n# 10.9.9.9 commented\n192.168.1.20 printer.lan\n203.0.113.7 mirror\n',
  'Box',
);
const LOCAL = 'reaches a local or private network address';

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'wren-local-')));
  workspace = join(base, 'workspace');
  mkdirSync(workspace, { recursive: true });
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const signaturesOf = async (
  command: string,
  options: { sandboxed?: boolean; network?: boolean } = {},
): Promise<string[]> => {
  const tool = createExecTool({
    config: () => config({ sandbox: options.sandboxed ? 'auto' : 'none' }),
    checkSandbox: async () => ({ available: true }),
    localNames: () => names,
  });
  const args = { command, ...(options.network !== undefined ? { network: options.network } : {}) };
  return (await tool.assess!(args, toolContext({ workspace }))).signatures ?? [];
};

describe('isLocalHost', () => {
  it('knows loopback, private, link-local and unspecified addresses in every spelling', () => {
    for (const host of [
      ...['127.0.0.1', '127.9.8.7', '127.1', '2130706433', '0x7f000001', '0x7f.1', '0177.0.0.1', '0.0.0.0'],
      ...['[::1]', '::1', '[::]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '10.0.0.5', '172.16.0.1'],
      ...['172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '[fd00::1]', '[fc00::1]'],
      ...['[fe80::1%25eth0]', 'fe80::1%eth0', 'localhost', 'LOCALHOST', 'localhost.', 'ip6-localhost'],
      ...['ip6-loopback', 'api.localhost', 'box', 'BOX.home', 'printer.lan', '%6c%6fcalhost'],
    ])
      expect(isLocalHost(host, names), host).toBe(true);
  });

  it('leaves public addresses and names only DNS can answer alone', () => {
    for (const host of [
      ...[
        '8.8.8.8',
        '172.15.0.1',
        '172.32.0.1',
        '192.169.0.1',
        '1.2.3.4',
        '[2606:4700::1111]',
        'example.com',
      ],
      ...['127.0.0.1.nip.io', 'localhost.example.com', 'mirror', '0.0.0.5', '224.0.0.1', '', 'local'],
    ])
      expect(isLocalHost(host, names), host).toBe(false);
  });
});

describe('exec: a network command that reaches a local or private address', () => {
  it('carries a danger signature for loopback, private and disguised destinations', async () => {
    for (const [command, shown] of [
      ['curl http://127.0.0.1:11434/api/tags', '127.0.0.1'],
      ['curl -s localhost:11434', 'localhost'],
      ['curl -s 127.1', '127.1'],
      ['curl http://[::1]:8080/', '[::1]'],
      ['curl http://0.0.0.0:11434', '0.0.0.0'],
      ['curl http://2130706433/', '2130706433'],
      ['curl http://0x7f000001/', '0x7f000001'],
      ['curl http://a@127.0.0.1/', '127.0.0.1'],
      ['curl http://x.example@127.0.0.1:11434/', '127.0.0.1'],
      ['curl http://localhost./', 'localhost.'],
      ['curl http://ip6-localhost/', 'ip6-localhost'],
      ['curl http://box:11434/', 'box'],
      ['curl http://169.254.169.254/latest/meta-data/', '169.254.169.254'],
      ['curl http://[fd12::1]/', '[fd12::1]'],
      ['wget -qO- 192.168.1.1', '192.168.1.1'],
      ['wget http://172.20.0.2/', '172.20.0.2'],
      ['nc 127.0.0.1 6379', '127.0.0.1'],
      ['echo INFO | nc -w 1 10.1.2.3 6379', '10.1.2.3'],
      ['ssh user@10.0.0.5', '10.0.0.5'],
      ['ssh -p 2222 localhost', 'localhost'],
      ['rsync -a notes/ backup@192.168.1.5:/srv/notes', '192.168.1.5'],
      ['redis-cli -h 127.0.0.1 keys "*"', '127.0.0.1'],
      ['psql -h localhost -U postgres', 'localhost'],
      ['dig @127.0.0.53 example.com', '127.0.0.53'],
      ['cat < /dev/tcp/127.0.0.1/11434', '127.0.0.1'],
      ['curl -x http://127.0.0.1:8080 https://example.com', '127.0.0.1'],
      ['curl --resolve example.com:443:127.0.0.1 https://example.com', '127.0.0.1'],
      ['https_proxy=http://127.0.0.1:3128 curl https://example.com', '127.0.0.1'],
      ['python3 client.py http://localhost:6379', 'localhost'],
      ['sh -c "curl -s http://127.0.0.1:11434"', '127.0.0.1'],
      ['curl -s 0:11434', '0'],
      ['socat - TCP:127.0.0.1:6379', '127.0.0.1'],
      ['curl --unix-socket /run/docker.sock http://x/containers/json', 'unix:/run/docker.sock'],
      ['nc -U /tmp/app.sock', 'unix:/tmp/app.sock'],
      ['socat - UNIX-CONNECT:/run/user/0/bus', 'unix:/run/user/0/bus'],
      // Clients that talk to a server on this machine unless told another host.
      ['ollama list', 'localhost'],
      ['redis-cli keys "*"', 'localhost'],
      ['psql -c "select 1"', 'localhost'],
    ])
      expect(await signaturesOf(command!), command).toContain(`${LOCAL} (${shown})`);
  });

  it('leaves everyday network commands unasked', async () => {
    for (const command of [
      ...['curl https://example.com', 'curl -fsSL https://api.github.com/repos/a/b', 'git pull', 'git fetch'],
      ...['npm view zod version', 'curl -m 10.5 https://example.com', 'curl --retry 3 https://example.com'],
      ...[
        'ssh -p 2222 git@github.com',
        'ping -c 3 example.com',
        'nc -w 3 example.com 80',
        'curl http://8.8.8.8',
      ],
      ...['echo "open http://localhost:3000"', 'grep 127.0.0.1 /etc/hosts', 'curl http://127.0.0.1.nip.io/'],
      ...[
        'curl http://172.32.0.1/',
        'wget https://mirror/x.tar.gz',
        'ollama --version',
        'nmap -p 80/tcp x.example',
      ],
      ...['redis-cli -h cache.example.com ping', 'psql postgresql://db.example.com/app -c "select 1"'],
    ])
      expect(await signaturesOf(command), command).toEqual([]);
  });

  it('in the sandbox: only with `network: true`, which shares the host network and its loopback', async () => {
    const command = 'curl -s http://127.0.0.1:11434';
    expect(await signaturesOf(command, { sandboxed: true })).toEqual([]);
    expect(await signaturesOf(command, { sandboxed: true, network: false })).toEqual([]);
    expect(await signaturesOf(command, { sandboxed: true, network: true })).toEqual([`${LOCAL} (127.0.0.1)`]);
    expect(await signaturesOf('curl https://example.com', { sandboxed: true, network: true })).toEqual([]);
  });
});
