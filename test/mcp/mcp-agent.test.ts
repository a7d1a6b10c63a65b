import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/bus/messages.js';
import { type FakeLlmServer, type RecordedRequest, startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { waitFor } from '../support/wren-home.js';
import { agentOver, type McpHarness, mcpHarness, servers } from './mcp-harness.js';

let llm: FakeLlmServer;
const open: McpHarness[] = [];

beforeAll(async () => {
  llm = await startFakeLlmServer();
});
afterAll(() => llm.close());
beforeEach(() => llm.reset());
afterEach(async () => {
  await Promise.all(open.splice(0).map((harness) => harness.close()));
});

function harness(...args: Parameters<typeof mcpHarness>) {
  const created = mcpHarness(...args);
  open.push(created);
  return created;
}

const mcpTools = (request: RecordedRequest) => request.toolNames.filter((name) => name.includes('__'));
const useToolsText = (request: RecordedRequest) =>
  JSON.stringify(
    request.body.tools.find((tool: { function: { name: string } }) => tool.function.name === 'use_tools'),
  );
const toolMessages = (request: RecordedRequest) =>
  (request.body.messages as Array<{ role: string; content: string }>).filter(
    (message) => message.role === 'tool',
  );

async function ready(h: McpHarness, ...names: string[]) {
  await waitFor(
    () => names.every((name) => h.manager.status().find((s) => s.name === name)?.state === 'ready'),
    15_000,
  );
}

describe('MCP tools through the agent loop (real npm servers, fake model over HTTP)', () => {
  it('activates on demand, calls tools end to end and reports validation errors to the model', async () => {
    const h = harness((dir) => ({
      everything: servers.everything(),
      memory: servers.memory(join(dir, 'memory.jsonl')),
      files: servers.filesystem(dir),
    }));
    await ready(h, 'everything', 'memory', 'files');
    const agent = agentOver(h, llm);
    llm.script(
      { toolCalls: [{ name: 'use_tools', arguments: { names: ['everything__get-sum'] } }] },
      { toolCalls: [{ name: 'everything__get-sum', arguments: { a: 'two', b: 3 } }] },
      { toolCalls: [{ name: 'everything__get-sum', arguments: { a: 2, b: 3 } }] },
      { text: 'The sum is 5.' },
    );
    const reply = await agent.ask('what is 2 + 3?');
    expect(reply.text).toBe('The sum is 5.');
    const [first, second, third, fourth] = llm.requests;
    // First request: no MCP schemas, one catalogue line per server.
    expect(mcpTools(first!)).toEqual([]);
    const catalogue = useToolsText(first!).match(
      /MCP servers \(activate all tools of one as NAME__\*\): ([^"\\]*)/,
    );
    expect(catalogue?.[1]?.split(', ').sort()).toEqual(['everything', 'files', 'memory']);
    // After activation: exactly the requested one.
    expect(mcpTools(second!)).toEqual(['everything__get-sum']);
    expect(mcpTools(fourth!)).toEqual(['everything__get-sum']);
    expect(toolMessages(third!).at(-1)!.content).toMatch(
      /Invalid arguments for everything__get-sum: a: must be number/,
    );
    expect(toolMessages(fourth!).at(-1)!.content).toContain('The sum of 2 and 3 is 5');
    await agent.stop();
  });

  it('activates a whole server by its group name and maps images and server-side errors', async () => {
    const h = harness((dir) => ({
      everything: servers.everything(),
      files: servers.filesystem(join(dir, 'home')),
    }));
    await ready(h, 'everything', 'files');
    const agent = agentOver(h, llm);
    llm.script(
      {
        toolCalls: [{ name: 'use_tools', arguments: { names: ['everything__*', 'files__read_text_file'] } }],
      },
      {
        toolCalls: [
          { name: 'everything__get-tiny-image', arguments: {} },
          { name: 'files__read_text_file', arguments: { path: '/etc/passwd' } },
        ],
      },
      { text: 'done' },
    );
    await agent.ask('show me');
    const second = llm.requests[1]!;
    expect(mcpTools(second)).toEqual(
      expect.arrayContaining(['everything__echo', 'everything__get-sum', 'files__read_text_file']),
    );
    expect(mcpTools(second).filter((name) => name.startsWith('files__'))).toEqual(['files__read_text_file']);
    const results = toolMessages(llm.requests[2]!).slice(-2);
    expect(results[0]!.content).toMatch(/\[image image\/png, \d+ bytes/);
    expect(results[1]!.content).toMatch(/denied|outside|not allowed/i);
    await agent.stop();
  });

  it('sends an always:true server with every request', async () => {
    const h = harness((dir) => ({ mem: { ...servers.memory(join(dir, 'm.jsonl')), always: true } }));
    await ready(h, 'mem');
    const agent = agentOver(h, llm);
    await agent.ask('hi');
    expect(mcpTools(llm.requests[0]!)).toContain('mem__read_graph');
    await agent.stop();
  });

  it('turns a server crash during a call into an error result and restarts the server', async () => {
    const h = harness({ everything: servers.everything() });
    await ready(h, 'everything');
    const before = h.manager.status()[0]!;
    const agent = agentOver(h, llm);
    llm.script(
      {
        toolCalls: [
          { name: 'use_tools', arguments: { names: ['everything__trigger-long-running-operation'] } },
        ],
      },
      {
        toolCalls: [
          { name: 'everything__trigger-long-running-operation', arguments: { duration: 30, steps: 30 } },
        ],
      },
      { text: 'it failed' },
    );
    let killed = false;
    const onEvent = (event: AgentEvent) => {
      if (
        event.type === 'tool-call-start' &&
        event.name === 'everything__trigger-long-running-operation' &&
        !killed
      ) {
        killed = true;
        setTimeout(() => process.kill(before.pid!, 'SIGKILL'), 300);
      }
    };
    const reply = await agent.bus.request(
      { id: 'crash', channel: 'test', senderId: 'owner', chatId: 'c2', text: 'run it', fromOwner: true },
      onEvent,
    );
    expect(reply.text).toBe('it failed');
    expect(toolMessages(llm.requests[2]!).at(-1)!.content).toMatch(
      /stopped during the call; it is being restarted/,
    );
    await waitFor(() => {
      const now = h.manager.status()[0]!;
      return now.state === 'ready' && now.restarts === 1 && now.pid !== before.pid;
    }, 15_000);
    expect(h.registry.get('everything__echo')).toBeDefined();
    await agent.stop();
  });
});
