import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { type McpHarness, mcpHarness, servers } from '../../test/mcp/mcp-harness.js';
import { waitFor } from '../../test/support/wren-home.js';
import { mcpRoutes } from './mcp-routes.js';

const open: McpHarness[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((harness) => harness.close()));
});

type Server = { name: string; enabled: boolean; state: string; error?: string; tools: unknown[] };
type Body = Record<string, unknown> & {
  error?: { code: string; message: string };
  servers?: Server[];
  server?: Server;
};

/**
 * A temp home whose mcp.json has the real memory server (stdio), a disabled entry, an invalid one and one
 * whose `${VAR}` is unset; the real manager runs it (unless `start: false`).
 */
function setup(options: { hotReload?: boolean; enabled?: boolean } = {}) {
  const settings = { enabled: options.enabled ?? true, hotReload: options.hotReload ?? true };
  const harness = mcpHarness(
    (dir) => ({
      memory: servers.memory(join(dir, 'memory.jsonl')),
      parked: { command: 'does-not-exist', args: ['--token', '${PARKED_TOKEN}'], enabled: false },
      typo: { command: 'node', argz: [] },
      keyless: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer ${UNSET_MCP_TOKEN}' } },
    }),
    { settings: { hotReload: settings.hotReload }, start: settings.enabled },
  );
  open.push(harness);
  const app = new Hono();
  app.route(
    '/',
    mcpRoutes({
      home: harness.home,
      env: { PATH: process.env['PATH'] ?? '' },
      manager: harness.manager,
      settings: () => settings,
    }),
  );
  const send = async (method: string, path: string) => {
    const response = await app.request(path, { method });
    return { status: response.status, body: (await response.json()) as Body };
  };
  const server = async (name: string) =>
    (await send('GET', '/api/mcp')).body.servers?.find((entry) => entry.name === name);
  const file = join(harness.home, 'mcp.json');
  return { harness, send, server, file, mcpJson: () => JSON.parse(readFileSync(file, 'utf8')) };
}

describe('mcp routes', () => {
  it('lists every server of mcp.json with its live state and the tools Wren offers from it', async () => {
    const { send, server } = setup();
    await waitFor(async () => (await server('memory'))?.state === 'ready', 15_000);
    const { status, body } = await send('GET', '/api/mcp');
    expect(status).toBe(200);
    expect(body.servers?.map((entry) => entry.name)).toEqual(['memory', 'parked', 'typo', 'keyless']);
    const memory = body.servers![0]!;
    expect(memory).toMatchObject({ enabled: true, state: 'ready' });
    expect(memory.tools).toContainEqual({
      name: 'memory__create_entities',
      description: expect.stringMatching(/entit/i),
    });
    expect(body.servers![1]).toEqual({ name: 'parked', enabled: false, state: 'disabled', tools: [] });
    expect(body.servers![2]).toMatchObject({ state: 'invalid', error: expect.stringContaining('argz') });
    expect(body.servers![3]).toMatchObject({
      state: 'invalid',
      error: expect.stringContaining('UNSET_MCP_TOKEN'),
    });
  });

  it('disables and enables a server through mcp.json, as `wren mcp` does, and the manager follows', async () => {
    const { send, server, mcpJson } = setup();
    await waitFor(async () => (await server('memory'))?.state === 'ready', 15_000);
    const off = await send('POST', '/api/mcp/memory/disable');
    expect(off.status).toBe(200);
    expect(off.body['server']).toEqual({ name: 'memory', enabled: false, state: 'disabled', tools: [] });
    expect(mcpJson().mcpServers.memory.enabled).toBe(false);
    // Other entries are kept as written, placeholders included.
    expect(mcpJson().mcpServers.parked).toEqual({
      command: 'does-not-exist',
      args: ['--token', '${PARKED_TOKEN}'],
      enabled: false,
    });

    const on = await send('POST', '/api/mcp/memory/enable');
    expect(on.status).toBe(200);
    expect(on.body.server).toMatchObject({ name: 'memory', enabled: true });
    expect(['connecting', 'ready']).toContain(on.body.server?.state);
    expect(mcpJson().mcpServers.memory.enabled).toBe(true);
    await waitFor(async () => (await server('memory'))?.state === 'ready', 15_000);
  });

  it('answers 404 for a server that is not in mcp.json (and, to enable, no preset either)', async () => {
    const { send, file } = setup({ enabled: false });
    const before = readFileSync(file, 'utf8');
    for (const path of [
      '/api/mcp/nothing/enable',
      '/api/mcp/nothing/disable',
      '/api/mcp/arxiv/disable',
      '/api/mcp/..%2F..%2Fetc/enable',
    ]) {
      const answer = await send('POST', path);
      expect(answer.status, path).toBe(404);
      expect(answer.body.error?.code).toBe('not_found');
    }
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('adds a catalogue preset on enable; with hot_reload off the change waits for the next start', async () => {
    const { send, mcpJson } = setup({ hotReload: false, enabled: false });
    const added = await send('POST', '/api/mcp/arxiv/enable');
    expect(added.status).toBe(200);
    expect(added.body.server).toMatchObject({ name: 'arxiv', enabled: true });
    expect(added.body['note']).toMatch(/hot_reload/);
    expect(mcpJson().mcpServers.arxiv).toEqual({ command: 'uvx', args: ['arxiv-mcp-server'], enabled: true });
  });

  it('shows servers as disabled while MCP is off in config.yaml', async () => {
    const { server } = setup({ enabled: false });
    expect(await server('memory')).toEqual({
      name: 'memory',
      enabled: true,
      state: 'disabled',
      error: expect.stringContaining('mcp.enabled'),
      tools: [],
    });
  });

  it('reports a broken mcp.json and refuses to toggle with 409 until it is fixed', async () => {
    const { send, file } = setup({ enabled: false });
    writeFileSync(file, '{"mcpServers": {');
    const listed = await send('GET', '/api/mcp');
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ servers: [], fileError: expect.stringContaining('not valid JSON') });
    const toggled = await send('POST', '/api/mcp/memory/disable');
    expect(toggled.status).toBe(409);
    expect(toggled.body.error).toMatchObject({ code: 'conflict', message: expect.stringMatching(/JSON/) });
    expect(readFileSync(file, 'utf8')).toBe('{"mcpServers": {');
  });
});
