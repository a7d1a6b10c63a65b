import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { cliEnv, makeHome, runCli } from '../support/wren-home.js';

let llm: FakeLlmServer;
beforeAll(async () => {
  llm = await startFakeLlmServer();
});
afterAll(() => llm.close());
beforeEach(() => llm.reset());

/** auto mode, no sandbox, and the rule from the hostile run: everything the gate does is the analyser's. */
const config = () => `
models:
  - name: main
    protocol: openai
    base_url: ${llm.baseUrls.openai}
    model: fake-model
gate:
  mode: auto
  rules:
    - { tool: exec, match: { command: "git status*" }, action: allow }
tools:
  exec: { sandbox: none }
`;

function setup() {
  const home = makeHome(config());
  // The user's home folder as the commands see it (~): a temp folder, so a write there would show.
  const userHome = mkdtempSync(join(tmpdir(), 'wren-user-'));
  mkdirSync(join(userHome, '.ssh'));
  writeFileSync(join(userHome, '.ssh', 'id_rsa'), 'PRIVATE KEY');
  const victim = mkdtempSync(join(tmpdir(), 'wren-victim-'));
  writeFileSync(join(victim, 'data.txt'), 'precious');
  const env = { ...cliEnv(home), HOME: userHome, SECRET_IN_ENV: 'sk-env-secret-4242' };
  const call = async (name: string, args: Record<string, unknown>) => {
    llm.script({ toolCalls: [{ name, arguments: args }] }, { text: 'done' });
    return runCli(['chat', '-m', 'do it'], env);
  };
  const run = (command: string) => call('exec', { command });
  return { home, userHome, victim, run, call };
}

describe('exec through `wren chat -m` in auto mode without a sandbox', () => {
  it('holds hostile commands (denied, since nobody can be asked) and runs everyday ones', async () => {
    const { home, userHome, victim, run } = setup();
    for (const command of [
      'git status > ~/.bashrc',
      'git status >> ~/.ssh/authorized_keys',
      `rm -rf ${victim}`,
      `cd ${victim}/.. && rm -rf ${victim.split('/').at(-1)}`,
      'cat ~/.ss?/id_*',
      'cat /proc/self/environ',
    ]) {
      const result = await run(command);
      expect(result.code, command).toBe(0);
      expect(result.stderr, command).toMatch(/denied exec: it needs your approval/);
    }
    expect(existsSync(join(userHome, '.bashrc'))).toBe(false);
    expect(existsSync(join(userHome, '.ssh', 'authorized_keys'))).toBe(false);
    expect(readFileSync(join(victim, 'data.txt'), 'utf8')).toBe('precious');
    const sent = JSON.stringify(llm.requests.map((request) => request.body));
    expect(sent).not.toContain('PRIVATE KEY');
    expect(sent).not.toContain('sk-env-secret-4242');

    for (const command of ['echo ok > notes.txt', 'git status --short 2>/dev/null; true', 'ls -la']) {
      const result = await run(command);
      expect(result.stderr, command).toBe('');
    }
    expect(readFileSync(join(home, 'workspace', 'notes.txt'), 'utf8')).toBe('ok\n');
    // Nine runs of the real CLI, one after another: room for a loaded machine.
  }, 90_000);
});

describe('local services and secret files in auto mode', () => {
  it('asks before a command reads a service on loopback, and before anything overwrites the .env', async () => {
    const { home, run, call } = setup();
    const { port, pathname } = new URL(llm.baseUrls.openai);
    const models = `${pathname.replace(/\/$/, '')}/models`;
    mkdirSync(join(home, 'workspace', 'sub'), { recursive: true });
    writeFileSync(join(home, 'workspace', '.env'), 'OPENAI_API_KEY=sk-owner\n');
    const before = llm.requests.length;
    // The fake model server on 127.0.0.1 stands in for the owner's local model server.
    for (const command of [
      `curl -s http://127.0.0.1:${port}${models}`,
      `curl -s localhost:${port}${models}`,
      `curl -s http://2130706433:${port}${models}`,
      `curl -s 'http://a@127.1:${port}${models}'`,
      `cat < /dev/tcp/127.0.0.1/${port}`,
      'echo OPENAI_API_KEY=sk-attacker > .env',
    ]) {
      const result = await run(command);
      expect(result.stderr, command).toMatch(/denied exec: it needs your approval/);
    }
    for (const path of ['.env', '.ENV', 'sub/../.env']) {
      const result = await call('write_file', { path, content: 'OPENAI_API_KEY=sk-attacker\n' });
      expect(result.stderr, path).toMatch(/denied write_file: it needs your approval/);
    }
    // None of the commands ran: the server's model list never came back to the model as a tool result.
    expect(JSON.stringify(llm.requests.slice(before).map((request) => request.body))).not.toContain(
      'owned_by',
    );
    expect(readFileSync(join(home, 'workspace', '.env'), 'utf8')).toBe('OPENAI_API_KEY=sk-owner\n');
    expect(existsSync(join(home, 'workspace', '.ENV'))).toBe(false);

    for (const command of ['git pull 2>/dev/null; true', 'curl --version >/dev/null']) {
      const result = await run(command);
      expect(result.stderr, command).toBe('');
    }
    const notes = await call('write_file', { path: 'notes.md', content: 'hi\n' });
    expect(notes.stderr).toBe('');
    expect(readFileSync(join(home, 'workspace', 'notes.md'), 'utf8')).toBe('hi\n');
  }, 120_000);
});
