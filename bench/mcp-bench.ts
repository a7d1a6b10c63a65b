/**
 * MCP token benchmark: prompt tokens of "hi" in a fresh session with no MCP servers vs 10 enabled servers
 * (4× server-everything, 3× server-filesystem, 3× server-memory: ~120 tools), counted like bench/run.ts
 * (system + messages + tool schemas as sent to the provider). Both runs compose what app.ts does today (starter
 * workspace files, read_file + list_dir) plus the MCP manager (so `mcp_server` is there in both). Also reports
 * what sending every MCP schema would cost.
 *   npx tsx bench/mcp-bench.ts
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AgentRuntime } from '../src/agent/agent-runtime.js';
import { ContextBuilder } from '../src/agent/context-builder.js';
import { MemorySessionStore } from '../src/agent/memory-session-store.js';
import { ensureWorkspaceFiles } from '../src/agent/workspace-files.js';
import { MessageBus } from '../src/bus/message-bus.js';
import { EndpointPool } from '../src/llm/endpoint-pool.js';
import { estimateTokens } from '../src/llm/token-estimate.js';
import { GroupedToolRegistry } from '../src/mcp/grouped-tool-registry.js';
import { DEFAULT_MCP_SETTINGS } from '../src/mcp/mcp-config.js';
import { createMcpManager } from '../src/mcp/mcp-manager.js';
import { McpPinRepository } from '../src/store/mcp-pin-repository.js';
import { openDatabase } from '../src/store/open-database.js';
import { createListDirTool } from '../src/tools/list-dir/list-dir.js';
import { createReadFileTool } from '../src/tools/read-file/read-file.js';
import { type FakeLlmServer, startFakeLlmServer } from '../test/fakes/fake-llm-server.js';

export interface McpHelloFigures {
  servers: number;
  tools: number;
  tokens: number;
  toolTokens: number;
  /** Tokens the tool schemas would cost if every MCP schema were sent with "hi". */
  allSchemasToolTokens: number;
}

export interface McpBenchResult {
  none: McpHelloFigures;
  ten: McpHelloFigures;
  /** (ten − none) / none, in percent. */
  overheadPercent: number;
}

const bin = (pkg: string) => resolve(`node_modules/@modelcontextprotocol/${pkg}/dist/index.js`);

function tenServers(dir: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 1; i <= 4; i++)
    out[`everything${i}`] = { command: process.execPath, args: [bin('server-everything')] };
  for (let i = 1; i <= 3; i++) {
    out[`files${i}`] = { command: process.execPath, args: [bin('server-filesystem'), dir] };
    out[`memory${i}`] = {
      command: process.execPath,
      args: [bin('server-memory')],
      env: { MEMORY_FILE_PATH: join(dir, `memory${i}.jsonl`) },
    };
  }
  return out;
}

async function hello(llm: FakeLlmServer, mcpServers: Record<string, unknown>): Promise<McpHelloFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'wren-mcp-bench-'));
  const home = join(dir, 'home');
  const workspace = join(home, 'workspace');
  mkdirSync(workspace, { recursive: true });
  ensureWorkspaceFiles(workspace); // the starter SOUL.md/AGENTS.md/USER.md, as a real home has
  writeFileSync(join(home, 'mcp.json'), JSON.stringify({ mcpServers }));
  const db = openDatabase(join(home, 'wren.db'));
  const registry = new GroupedToolRegistry();
  registry.register(createReadFileTool(() => [workspace])).register(createListDirTool(() => [workspace]));
  const manager = createMcpManager({
    home,
    registry,
    pins: new McpPinRepository(db),
    settings: DEFAULT_MCP_SETTINGS,
    env: { PATH: process.env['PATH'] ?? '' },
    watch: false,
  });
  manager.start();
  const deadline = Date.now() + 30_000;
  while (manager.status().some((server) => server.state !== 'ready')) {
    if (Date.now() > deadline) throw new Error(`servers not ready: ${JSON.stringify(manager.status())}`);
    await new Promise((done) => setTimeout(done, 50));
  }
  const bus = new MessageBus();
  const runtime = new AgentRuntime({
    bus,
    store: new MemorySessionStore(),
    model: new EndpointPool({ endpoints: [llm.endpoint('openai')] }),
    registry,
    context: new ContextBuilder({ workspace, timezone: 'UTC' }),
    workspace: () => workspace,
    settings: () => ({
      maxRounds: 4,
      maxConcurrency: 1,
      maxToolResultChars: 16_000,
      repeatLimit: 3,
      historyReserveTokens: 1024,
    }),
  });
  runtime.start();
  try {
    await bus.request({
      id: 'hi',
      channel: 'cli',
      senderId: 'owner',
      chatId: 'bench',
      text: 'hi',
      fromOwner: true,
    });
    const body = llm.lastRequest!.body as {
      messages: Array<{ role: string; content: string }>;
      tools?: unknown[];
    };
    const text = body.messages.map((message) => message.content).join('\n');
    const toolTokens = estimateTokens(JSON.stringify(body.tools ?? []));
    const all = registry.names().map((name) => {
      const tool = registry.get(name)!;
      return {
        type: 'function',
        function: { name, description: tool.description, parameters: tool.parameters },
      };
    });
    return {
      servers: manager.status().length,
      tools: registry.names().filter((name) => name.includes('__')).length,
      tokens: estimateTokens(text) + toolTokens + 4 * body.messages.length,
      toolTokens,
      allSchemasToolTokens: estimateTokens(JSON.stringify(all)),
    };
  } finally {
    await runtime.stop(1000);
    await manager.stop();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Measures (never asserts) the "hi" prompt with no MCP servers and with ten. */
export async function runMcpBench(): Promise<McpBenchResult> {
  const llm = await startFakeLlmServer();
  try {
    const none = await hello(llm, {});
    const ten = await hello(llm, tenServers(mkdtempSync(join(tmpdir(), 'wren-mcp-bench-files-'))));
    return { none, ten, overheadPercent: ((ten.tokens - none.tokens) / none.tokens) * 100 };
  } finally {
    await llm.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await runMcpBench();
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
