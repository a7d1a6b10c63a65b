import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCommands } from '../../../test/support/run-commands.js';
import { registerHookCommands } from './hooks.js';

const SECRET = 'cli-hook-secret-0123456789abcdef';
const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function homeWith(config: string, dotEnv = ''): string {
  const home = mkdtempSync(join(tmpdir(), 'wren-hooks-cli-'));
  dirs.push(home);
  writeFileSync(join(home, 'config.yaml'), config, { mode: 0o600 });
  writeFileSync(join(home, '.env'), dotEnv, { mode: 0o600 });
  return home;
}

/** Runs `wren hooks ARGS` in this process and returns what it printed. */
const wren = (home: string, args: string[]) => runCommands(registerHookCommands, home, ['hooks', ...args]);

const CONFIG = [
  'gateway: { port: 8123 }',
  'proactive: { deliver_to: [telegram:owner] }',
  'hooks:',
  '  github:',
  '    secret: ${GITHUB_HOOK_SECRET}',
  '    notify: "{{repository.full_name}}: {{action}} ({{repository.owner.login}})"',
  '  door:',
  `    secret: ${SECRET}`,
  '    prompt: Tell me about the door.',
  '    deliver_to: [email:owner]',
  '',
].join('\n');

describe('wren hooks', () => {
  it('lists each hook with its mode, targets and URL, never its secret', async () => {
    const home = homeWith(CONFIG, `GITHUB_HOOK_SECRET=${SECRET}-gh\n`);
    const { stdout, code } = await wren(home, ['list']);
    expect(code).toBe(0);
    expect(stdout).toContain('github  notify  → telegram:owner  http://127.0.0.1:8123/hooks/github');
    expect(stdout).toContain('door  prompt  → email:owner  http://127.0.0.1:8123/hooks/door');
    expect(stdout).not.toContain(SECRET);
    const json = JSON.parse((await wren(home, ['list', '--json', '--url', 'https://wren.example/'])).stdout);
    expect(json[0]).toMatchObject({ name: 'github', url: 'https://wren.example/hooks/github' });
    expect(JSON.stringify(json)).not.toContain(SECRET);
  });

  it('test prints a curl line whose signature matches the body it sends, without the secret', async () => {
    const home = homeWith(CONFIG, `GITHUB_HOOK_SECRET=${SECRET}-gh\n`);
    const { stdout, code } = await wren(home, ['test', 'github']);
    expect(code).toBe(0);
    expect(stdout).toContain("curl -i -X POST 'http://127.0.0.1:8123/hooks/github'");
    expect(stdout).not.toContain(SECRET);
    const body = /--data-binary '(.*)'/.exec(stdout)![1]!;
    expect(JSON.parse(body)).toEqual({
      repository: {
        full_name: 'sample repository.full_name',
        owner: { login: 'sample repository.owner.login' },
      },
      action: 'sample action',
    });
    const signature = /X-Wren-Signature: (sha256=[0-9a-f]{64})/.exec(stdout)![1];
    expect(signature).toBe(`sha256=${createHmac('sha256', `${SECRET}-gh`).update(body).digest('hex')}`);
    // The line is one a shell runs as it is (quoting checked by the shell itself, echo standing in for curl).
    const echoed = execFileSync('sh', ['-c', stdout.replace(/^curl/, 'printf "%s\\n"')], {
      encoding: 'utf8',
    });
    expect(echoed.split('\n')).toContain(body);
  });

  it('test quotes a body with a quote in it, and names the hooks when the name is unknown (exit 1)', async () => {
    const home = homeWith(CONFIG, `GITHUB_HOOK_SECRET=${SECRET}-gh\n`);
    const body = `{"say":"it's"}`;
    const { stdout } = await wren(home, ['test', 'door', '--body', body]);
    const echoed = execFileSync('sh', ['-c', stdout.replace(/^curl/, 'printf "%s\\n"')], {
      encoding: 'utf8',
    });
    expect(echoed.split('\n')).toContain(body);
    const missing = await wren(home, ['test', 'nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no hook "nope"');
    expect(missing.stderr).toContain('github, door');
  });

  it('exits 2 with the config problem when config.yaml is invalid', async () => {
    const home = homeWith('hooks:\n  x:\n    secret: short\n    notify: hi\n');
    const { stderr, code } = await wren(home, ['list']);
    expect(code).toBe(2);
    expect(stderr).toContain('hooks.x.secret');
    expect(stderr).not.toContain('short\n');
  });
});
