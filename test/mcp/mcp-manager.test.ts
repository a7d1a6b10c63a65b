import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wren-home.js';
import { type McpHarness, mcpHarness, servers } from './mcp-harness.js';

const open: McpHarness[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((harness) => harness.close()));
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

function harness(...args: Parameters<typeof mcpHarness>) {
  const created = mcpHarness(...args);
  open.push(created);
  return created;
}

const state = (h: McpHarness, name: string) => h.manager.status().find((s) => s.name === name);
const toolsOf = (h: McpHarness, server: string) =>
  h.registry.names().filter((name) => name.startsWith(`${server}__`));
const ctx = {
  sessionId: 's',
  channel: 'test',
  chatId: 'c',
  senderId: 'owner',
  isOwner: true,
  interactive: false,
  workspace: '/tmp',
};
const call = (h: McpHarness, name: string, args: unknown) =>
  h.registry.invoke({ id: 'x', name, arguments: JSON.stringify(args) }, ctx, new AbortController().signal);

async function freePort(): Promise<number> {
  return new Promise((resolvePort) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

async function startEverythingHttp(mode: 'streamableHttp' | 'sse'): Promise<number> {
  const port = await freePort();
  const child = spawn(process.execPath, [servers.everythingBin(), mode], {
    env: { PATH: process.env['PATH'], PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let output = '';
  await new Promise<void>((resolveStart, fail) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (/listening|running/i.test(output)) resolveStart();
    });
    child.on('exit', (code) => fail(new Error(`everything ${mode} exited ${code}: ${output}`)));
  });
  return port;
}

describe('MCP manager (real npm servers)', () => {
  it('starts in the background: a server that never answers initialize delays nothing', async () => {
    const h = harness(
      (dir) => ({ silent: servers.silent(dir), memory: servers.memory(join(dir, 'm.jsonl')) }),
      {
        settings: { connectTimeoutMs: 1500 },
      },
    );
    // start() has returned: both servers are still connecting.
    expect(h.manager.status().map((s) => [s.name, s.state])).toEqual([
      ['silent', 'connecting'],
      ['memory', 'connecting'],
    ]);
    await waitFor(() => state(h, 'memory')?.state === 'ready', 15_000);
    expect(state(h, 'silent')?.state).toBe('connecting');
    expect(toolsOf(h, 'memory').length).toBe(9);
    await waitFor(() => state(h, 'silent')?.state === 'failed', 15_000);
    expect(state(h, 'silent')?.display).toMatch(/^failed: .*timed out.*; retrying in \d+ s$/i);
    expect(toolsOf(h, 'silent')).toEqual([]);
  });

  it('hot-reloads mcp.json: added servers start, removed ones stop, changed ones restart, running calls go on', async () => {
    const h = harness((dir) => ({
      memory: servers.memory(join(dir, 'm.jsonl')),
      everything: servers.everything(),
    }));
    await waitFor(
      () => state(h, 'memory')?.state === 'ready' && state(h, 'everything')?.state === 'ready',
      15_000,
    );
    const pid = state(h, 'everything')!.pid;
    const longCall = call(h, 'everything__trigger-long-running-operation', { duration: 2, steps: 2 });
    h.writeServers({ everything: servers.everything(), files: servers.filesystem(h.dir) });
    await waitFor(() => state(h, 'files')?.state === 'ready' && !state(h, 'memory'), 15_000);
    expect(toolsOf(h, 'memory')).toEqual([]);
    expect(toolsOf(h, 'files')).toContain('files__read_text_file');
    const outcome = await longCall;
    expect(outcome.result.isError).toBeUndefined();
    expect(outcome.result.content).toMatch(/completed/i);
    expect(state(h, 'everything')!.pid).toBe(pid);
    // Changing an entry restarts that server with the new settings.
    h.writeServers({
      everything: { ...servers.everything(), tools: { deny: ['echo', 'get-*'] } },
      files: servers.filesystem(h.dir),
    });
    await waitFor(
      () => state(h, 'everything')?.state === 'ready' && state(h, 'everything')!.pid !== pid,
      15_000,
    );
    expect(toolsOf(h, 'everything')).not.toContain('everything__echo');
    expect(toolsOf(h, 'everything')).not.toContain('everything__get-sum');
    expect(toolsOf(h, 'everything')).toContain('everything__trigger-long-running-operation');
    // An invalid file is rejected; the servers keep running.
    h.writeServers({ everything: { command: 'x', url: 'http://127.0.0.1:1/mcp' } });
    await waitFor(() => state(h, 'everything')?.state === 'invalid', 5000);
    expect(state(h, 'everything')!.display).toMatch(/either "command".*or "url"/);
  });

  it('holds a server whose tool definitions changed until the owner approves them', async () => {
    const h = harness((dir) => ({ tools: servers.memory(join(dir, 'm.jsonl')) }));
    await waitFor(() => state(h, 'tools')?.state === 'ready', 15_000);
    expect(toolsOf(h, 'tools')).toContain('tools__read_graph');
    // Same name, different program: different definitions.
    h.writeServers({ tools: servers.everything() });
    await waitFor(() => state(h, 'tools')?.state === 'held', 15_000);
    expect(state(h, 'tools')!.display).toMatch(
      /^held: tool definitions changed \(added: .*echo.*; removed: .*read_graph.*\); approve with `wren mcp approve tools`$/,
    );
    expect(toolsOf(h, 'tools')).toEqual([]);
    expect(h.registry.catalog().some((entry) => entry.name.startsWith('tools__'))).toBe(false);
    // Approval from another process (the CLI writes the database): picked up by polling.
    expect(h.pins.approve('tools')).toMatch(/^[0-9a-f]{64}$/);
    await waitFor(() => state(h, 'tools')?.state === 'ready', 5000);
    expect(toolsOf(h, 'tools')).toContain('tools__echo');
    expect(h.manager.approve('tools')).toEqual({
      ok: false,
      reason: 'MCP server "tools" has no changed tool definitions to approve.',
    });
  });

  it('gives stdio servers a minimal environment plus their configured env, and logs stderr per server', async () => {
    process.env['WREN_TEST_SECRET'] = 'sk-should-not-leak';
    try {
      const h = harness(
        { everything: { ...servers.everything(), env: { GREETING: '${GREETING}', PLAIN: 'yes' } } },
        { env: { PATH: process.env['PATH'] ?? '', GREETING: 'hello from env' } },
      );
      await waitFor(() => state(h, 'everything')?.state === 'ready', 15_000);
      const outcome = await call(h, 'everything__get-env', {});
      expect(outcome.result.taint).toBe('untrusted');
      const env = JSON.parse(outcome.result.content) as Record<string, string>;
      expect(env['GREETING']).toBe('hello from env');
      expect(env['PLAIN']).toBe('yes');
      expect(env['WREN_TEST_SECRET']).toBeUndefined();
      expect(
        Object.keys(env).every((key) =>
          [
            'HOME',
            'LOGNAME',
            'PATH',
            'SHELL',
            'TERM',
            'USER',
            'LANG',
            'LC_ALL',
            'TZ',
            'TMPDIR',
            'GREETING',
            'PLAIN',
          ].includes(key),
        ),
      ).toBe(true);
      const log = state(h, 'everything')!.logFile!;
      expect(readFileSync(log, 'utf8')).toMatch(/starting everything/);
      expect(state(h, 'everything')!.launch).toBe(
        `GREETING=\${GREETING} PLAIN=yes ${process.execPath} ${servers.everythingBin()}`,
      );
    } finally {
      delete process.env['WREN_TEST_SECRET'];
    }
  });

  it('connects to streamable HTTP servers and falls back to SSE for old ones', async () => {
    const httpPort = await startEverythingHttp('streamableHttp');
    const ssePort = await startEverythingHttp('sse');
    const h = harness({
      modern: { url: `http://127.0.0.1:${httpPort}/mcp` },
      legacy: { url: `http://127.0.0.1:${ssePort}/sse` },
    });
    await waitFor(
      () => state(h, 'modern')?.state === 'ready' && state(h, 'legacy')?.state === 'ready',
      15_000,
    );
    for (const server of ['modern', 'legacy']) {
      const outcome = await call(h, `${server}__echo`, { message: `via ${server}` });
      expect(outcome.result.content).toBe(`Echo: via ${server}`);
    }
    expect(state(h, 'modern')!.transport).toBe('http-or-sse');
  });

  it('times calls out after the server timeout and cancels them through the AbortSignal', async () => {
    const h = harness({ everything: { ...servers.everything(), timeout: 0.5 } });
    await waitFor(() => state(h, 'everything')?.state === 'ready', 15_000);
    const slow = await call(h, 'everything__trigger-long-running-operation', { duration: 5, steps: 5 });
    expect(slow.result).toMatchObject({
      isError: true,
      content:
        'everything__trigger-long-running-operation failed: MCP server "everything" did not answer within 0.5 s (its "timeout" in mcp.json).',
    });
    const controller = new AbortController();
    const pending = h.registry.invoke(
      { id: 'y', name: 'everything__trigger-long-running-operation', arguments: '{"duration":5,"steps":5}' },
      ctx,
      controller.signal,
    );
    controller.abort(new Error('stopped by the user'));
    expect((await pending).result).toMatchObject({
      isError: true,
      content: expect.stringMatching(/cancelled/),
    });
    expect((await call(h, 'everything__echo', { message: 'still here' })).result.content).toBe(
      'Echo: still here',
    );
    expect(state(h, 'everything')!.restarts).toBe(0);
  });

  it('reports an unreachable remote server as failed and keeps retrying', async () => {
    const port = await freePort();
    const h = harness({ gone: { url: `http://127.0.0.1:${port}/mcp` } });
    await waitFor(() => state(h, 'gone')?.state === 'failed', 10_000);
    expect(state(h, 'gone')!.display).toMatch(/^failed: .+; retrying in \d+ s$/);
  });

  it('reports bad entries and unset variables per server without spoiling the others', async () => {
    const h = harness((dir) => ({
      good: servers.memory(join(dir, 'm.jsonl')),
      typo: { comand: 'x' },
      secret: { command: 'x', env: { TOKEN: '${MISSING_TOKEN}' } },
      off: { command: 'x', env: { TOKEN: '${MISSING_TOKEN}' }, enabled: false },
    }));
    await waitFor(() => state(h, 'good')?.state === 'ready', 15_000);
    expect(state(h, 'typo')!.display).toBe(
      'invalid: mcp.json: mcpServers.typo.comand: unknown key (did you mean command?)',
    );
    expect(state(h, 'secret')!.display).toMatch(/MISSING_TOKEN is not set/);
    expect(state(h, 'off')!.state).toBe('disabled');
    expect(state(h, 'off')!.launch).toBe('TOKEN=${MISSING_TOKEN} x');
  });
});
