/**
 * Composes what the MCP tests need around the real MCP servers from npm: a temp home with mcp.json, a real
 * SQLite file with the v4 migration, a grouped tool registry, the manager, and (for end-to-end tests) the
 * agent runtime talking to the fake LLM server over HTTP.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { AgentRuntime } from '../../src/agent/agent-runtime.js';
import { ContextBuilder } from '../../src/agent/context-builder.js';
import { MemorySessionStore } from '../../src/agent/memory-session-store.js';
import { MessageBus } from '../../src/bus/message-bus.js';
import type { OutboundMessage } from '../../src/bus/messages.js';
import { EndpointPool } from '../../src/llm/endpoint-pool.js';
import { GroupedToolRegistry } from '../../src/mcp/grouped-tool-registry.js';
import { DEFAULT_MCP_SETTINGS, type McpSettings } from '../../src/mcp/mcp-config.js';
import { createMcpManager, type McpManager } from '../../src/mcp/mcp-manager.js';
import { McpPinRepository } from '../../src/store/mcp-pin-repository.js';
import { MIGRATION_V4 } from '../../src/store/migration-v4-mcp.js';
import { MIGRATIONS, migrate } from '../../src/store/migrations.js';
import { openDatabase } from '../../src/store/open-database.js';
import { createListDirTool } from '../../src/tools/list-dir/list-dir.js';
import { createReadFileTool } from '../../src/tools/read-file/read-file.js';
import type { FakeLlmServer } from '../fakes/fake-llm-server.js';

const bin = (pkg: string) => resolve(`node_modules/@modelcontextprotocol/${pkg}/dist/index.js`);

/** mcp.json entries that start the real npm servers with this Node, never through npx. */
export const servers = {
  everything: () => ({ command: process.execPath, args: [bin('server-everything')] }),
  filesystem: (dir: string) => ({ command: process.execPath, args: [bin('server-filesystem'), dir] }),
  memory: (file: string) => ({
    command: process.execPath,
    args: [bin('server-memory')],
    env: { MEMORY_FILE_PATH: file },
  }),
  /** A "server" that reads stdin and never answers `initialize`. */
  silent: (dir: string) => {
    const script = join(dir, 'silent-server.mjs');
    writeFileSync(script, 'process.stdin.resume();\nsetInterval(() => {}, 1 << 30);\n');
    return { command: process.execPath, args: [script] };
  },
  everythingBin: () => bin('server-everything'),
};

/** Fast reconnects for tests. */
export const TEST_SETTINGS: McpSettings = {
  ...DEFAULT_MCP_SETTINGS,
  connectTimeoutMs: 15_000,
  reconnectInitialMs: 50,
  reconnectMaxMs: 400,
};

export interface McpHarness {
  home: string;
  dir: string;
  db: Database.Database;
  pins: McpPinRepository;
  registry: GroupedToolRegistry;
  manager: McpManager;
  writeServers(servers: Record<string, unknown>): void;
  close(): Promise<void>;
}

/** A temp home with `mcpServers` written to mcp.json, and a started manager (unless `start: false`). */
export function mcpHarness(
  initial: Record<string, unknown> | ((dir: string) => Record<string, unknown>),
  options: { settings?: Partial<McpSettings>; start?: boolean; env?: Record<string, string> } = {},
): McpHarness {
  const dir = mkdtempSync(join(tmpdir(), 'wren-mcp-'));
  const home = join(dir, 'home');
  mkdirSync(join(home, 'workspace'), { recursive: true, mode: 0o700 });
  const writeServers = (mcpServers: Record<string, unknown>) =>
    writeFileSync(join(home, 'mcp.json'), JSON.stringify({ mcpServers }, null, 2), { mode: 0o600 });
  writeServers(typeof initial === 'function' ? initial(dir) : initial);
  const db = openDatabase(join(home, 'wren.db'), { migrate: false });
  migrate(db, [...MIGRATIONS, MIGRATION_V4]);
  const pins = new McpPinRepository(db);
  const roots = () => [join(home, 'workspace')];
  const registry = new GroupedToolRegistry();
  registry.register(createReadFileTool(roots)).register(createListDirTool(roots));
  const manager = createMcpManager({
    home,
    registry,
    pins,
    settings: { ...TEST_SETTINGS, ...options.settings },
    env: options.env ?? { PATH: process.env['PATH'] ?? '' },
    debounceMs: 50,
    approvalPollMs: 100,
  });
  if (options.start !== false) manager.start();
  return {
    home,
    dir,
    db,
    pins,
    registry,
    manager,
    writeServers,
    async close() {
      await manager.stop();
      db.close();
    },
  };
}

/** The agent runtime over the harness's registry, talking to the fake LLM server over OpenAI's wire format. */
export function agentOver(harness: McpHarness, llm: FakeLlmServer) {
  const bus = new MessageBus();
  const runtime = new AgentRuntime({
    bus,
    store: new MemorySessionStore(),
    model: new EndpointPool({ endpoints: [llm.endpoint('openai')] }),
    registry: harness.registry,
    context: new ContextBuilder({ workspace: join(harness.home, 'workspace'), timezone: 'UTC' }),
    workspace: () => join(harness.home, 'workspace'),
    settings: () => ({
      maxRounds: 8,
      maxConcurrency: 2,
      maxToolResultChars: 16_000,
      repeatLimit: 3,
      historyReserveTokens: 256,
    }),
  });
  runtime.start();
  let counter = 0;
  return {
    bus,
    runtime,
    ask(text: string): Promise<OutboundMessage> {
      counter++;
      return bus.request({
        id: `m${counter}`,
        channel: 'test',
        senderId: 'owner',
        chatId: 'c1',
        text,
        fromOwner: true,
        interactive: false,
      });
    },
    stop: () => runtime.stop(1000),
  };
}
