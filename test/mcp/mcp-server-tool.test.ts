import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wren-home.js';
import { type McpHarness, mcpHarness, servers } from './mcp-harness.js';

const open: McpHarness[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((harness) => harness.close()));
});

const ctx = {
  sessionId: 's',
  channel: 'test',
  chatId: 'c',
  senderId: 'owner',
  isOwner: true,
  interactive: false,
  workspace: '/tmp',
};

function setup() {
  const h = mcpHarness((dir) => ({ memory: servers.memory(join(dir, 'm.jsonl')) }));
  open.push(h);
  const invoke = async (args: Record<string, unknown>, name = 'mcp_server') =>
    (
      await h.registry.invoke(
        { id: 'x', name, arguments: JSON.stringify(args) },
        ctx,
        new AbortController().signal,
      )
    ).result;
  const state = (name: string) => h.manager.status().find((s) => s.name === name);
  const file = () =>
    JSON.parse(readFileSync(join(h.home, 'mcp.json'), 'utf8')) as {
      mcpServers: Record<string, Record<string, unknown>>;
    };
  return { h, invoke, state, file };
}

describe('the mcp_server tool', () => {
  it('lists servers and tools, adds, disables, enables and removes servers through mcp.json', async () => {
    const { h, invoke, state, file } = setup();
    const tool = h.registry.get('mcp_server')!;
    expect(tool.core).toBeFalsy();
    await waitFor(() => state('memory')?.state === 'ready', 15_000);
    expect((await invoke({ action: 'list' })).content).toMatch(
      /^memory\s+ready \(9 tools\)\s+MEMORY_FILE_PATH=/,
    );
    const tools = await invoke({ action: 'list_tools', name: 'memory' });
    expect(tools.content).toContain('- memory__read_graph: Read the entire knowledge graph');
    expect(tools.content).toContain('["memory__*"]');

    const add = {
      action: 'add',
      name: 'every',
      command: process.execPath,
      args: [servers.everythingBin()],
      env: { API_KEY: '${EVERY_KEY:-demo}' },
    };
    expect(await tool.assess!(add, ctx)).toEqual({
      target: 'every',
      signatures: [
        `starts a program: API_KEY=\${EVERY_KEY:-demo} ${process.execPath} ${servers.everythingBin()}`,
      ],
    });
    expect((await invoke(add)).content).toMatch(/^Added MCP server "every"/);
    expect(file().mcpServers['every']).toEqual({
      command: process.execPath,
      args: [servers.everythingBin()],
      env: { API_KEY: '${EVERY_KEY:-demo}' },
    });
    await waitFor(() => state('every')?.state === 'ready', 15_000);
    expect(h.registry.get('every__echo')).toBeDefined();
    // Resources and prompts of servers that offer them; read_resource appears with them.
    const resources = await invoke({ action: 'list_resources', name: 'every' });
    const uri = resources.content.split('\n')[0]!.split(' ')[0]!;
    expect(uri).toMatch(/^demo:\/\/resource\//);
    expect((await invoke({ action: 'list_prompts', name: 'every' })).content).toMatch(
      /simple-prompt|args-prompt/,
    );
    const read = await invoke({ action: 'read_resource', name: 'every', uri });
    expect(read.isError).toBeUndefined();
    expect(read.taint).toBe('untrusted');
    expect(read.content.length).toBeGreaterThan(0);
    expect((await invoke({ action: 'read_resource', name: 'every' })).content).toMatch(/needs "uri"/);

    expect((await invoke({ action: 'disable', name: 'memory' })).content).toBe(
      'Disabled MCP server "memory".',
    );
    expect(file().mcpServers['memory']!['enabled']).toBe(false);
    expect(state('memory')?.state).toBe('disabled');
    expect(h.registry.names().filter((name) => name.startsWith('memory__'))).toEqual([]);
    expect(await tool.assess!({ action: 'enable', name: 'memory' }, ctx)).toEqual({
      target: 'memory',
      signatures: [
        expect.stringMatching(/^starts a program: MEMORY_FILE_PATH=.* .*server-memory\/dist\/index\.js$/),
      ],
    });
    await invoke({ action: 'enable', name: 'memory' });
    await waitFor(() => state('memory')?.state === 'ready', 15_000);

    expect((await invoke({ action: 'remove', name: 'every' })).content).toBe('Removed MCP server "every".');
    expect(file().mcpServers['every']).toBeUndefined();
    expect(state('every')).toBeUndefined();
  });

  it('gates adding and enabling with the exact command line; answers bad calls with what to fix', async () => {
    const { h, invoke } = setup();
    const tool = h.registry.get('mcp_server')!;
    expect(
      await tool.assess!({ action: 'add', name: 'x', command: 'npx -y "@scope/some server" --flag' }, ctx),
    ).toEqual({
      target: 'x',
      signatures: ["starts a program: npx -y '@scope/some server' --flag"],
    });
    expect(await tool.assess!({ action: 'add', name: 'r', url: 'https://mcp.example.com/mcp' }, ctx)).toEqual(
      {
        target: 'r',
        signatures: ['connects to an MCP server: https://mcp.example.com/mcp'],
      },
    );
    expect(await tool.assess!({ action: 'enable', name: 'github' }, ctx)).toEqual({
      target: 'github',
      signatures: [
        'starts a program: GITHUB_PERSONAL_ACCESS_TOKEN=${GITHUB_TOKEN} docker run -i --rm -e GITHUB_PERSONAL_ACCESS_TOKEN ghcr.io/github/github-mcp-server',
      ],
    });
    expect(await tool.assess!({ action: 'list' }, ctx)).toEqual({});
    expect((await invoke({ action: 'add' })).content).toBe('mcp_server failed: mcp_server add needs "name".');
    expect((await invoke({ action: 'add', name: 'bad name', command: 'x' })).content).toMatch(
      /server name may use/,
    );
    expect((await invoke({ action: 'add', name: 'memory', command: 'x' })).content).toMatch(
      /already exists; remove it first/,
    );
    expect((await invoke({ action: 'add', name: 'y' })).content).toMatch(/needs "command".*or "url"/);
    expect((await invoke({ action: 'enable', name: 'nope' })).content).toMatch(
      /No MCP server "nope". Configured: memory/,
    );
    expect((await invoke({ action: 'explode' })).content).toMatch(
      /Invalid arguments for mcp_server: action: must be one of/,
    );
    expect((await invoke({ action: 'list_tools', name: 'nope' })).isError).toBe(true);
    // A preset can be enabled by name: it is copied into mcp.json.
    await invoke({ action: 'enable', name: 'time' });
    expect(JSON.parse(readFileSync(join(h.home, 'mcp.json'), 'utf8')).mcpServers.time).toEqual({
      command: 'uvx',
      args: ['mcp-server-time'],
      enabled: true,
    });
  });
});
