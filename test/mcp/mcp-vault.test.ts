import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolContext } from '../../src/agent/tool.js';
import { MessageBus } from '../../src/bus/message-bus.js';
import { createGate, type Gate } from '../../src/gate/create-gate.js';
import { gateSectionSchema, toGateConfig } from '../../src/gate/gate-config.js';
import { Redactor } from '../../src/gate/redactor.js';
import { openStoresAt, type Stores } from '../../src/store/open-stores.js';
import { createVaultService } from '../../src/vault/vault-service.js';
import { waitFor } from '../support/wren-home.js';
import { type McpHarness, mcpHarness, servers } from './mcp-harness.js';

const VALUE = 'mcp-bound-secret-31337';
const open: Array<{ harness: McpHarness; stores: Stores; gate: Gate }> = [];
afterEach(async () => {
  for (const { harness, stores, gate } of open.splice(0)) {
    gate.close();
    stores.close();
    await harness.close();
  }
});

async function setup(bindings: { mcp: string[] }) {
  const harness = mcpHarness({ everything: servers.everything() });
  const stores = openStoresAt(join(harness.dir, 'gate.db'));
  const redactor = new Redactor();
  const vault = createVaultService({ store: stores.vault, key: () => Buffer.alloc(32, 1), redactor });
  vault.set('MCP_TOKEN', VALUE, bindings);
  const gate = createGate({
    config: () => toGateConfig(gateSectionSchema.parse({ mode: 'auto' })),
    stores,
    bus: new MessageBus(),
    redactor,
    vault,
  });
  open.push({ harness, stores, gate });
  await waitFor(
    () => harness.manager.status().find((s) => s.name === 'everything')?.state === 'ready',
    15_000,
  );
  const ctx: ToolContext = {
    sessionId: 's',
    channel: 'cli',
    chatId: 'c',
    senderId: 'owner',
    isOwner: true,
    interactive: true,
    workspace: join(harness.home, 'workspace'),
  };
  const call = (args: Record<string, unknown>) =>
    harness.registry.invoke(
      { id: 'x', name: 'everything__echo', arguments: JSON.stringify(args) },
      ctx,
      new AbortController().signal,
      gate.beforeToolCall,
      gate.afterToolCall,
    );
  return { gate, call };
}

describe('vault secrets in MCP arguments (the real everything server)', () => {
  it('reach a bound server in the copy sent to it; what comes back is redacted', {
    timeout: 30_000,
  }, async () => {
    const { call, gate } = await setup({ mcp: ['everything'] });
    const outcome = await call({ message: 'token {{vault:MCP_TOKEN}}' });
    // The server echoed the value (not the reference), and the result the model reads has it redacted.
    expect(outcome.result.content).toContain('token [redacted]');
    expect(JSON.stringify(outcome)).not.toContain(VALUE);
    expect(outcome.args).toEqual({ message: 'token {{vault:MCP_TOKEN}}' });
    expect(JSON.stringify(gate.audit.list())).not.toContain(VALUE);
  });

  it('a server it is not bound to asks', { timeout: 30_000 }, async () => {
    const { call, gate } = await setup({ mcp: ['other'] });
    const pending = call({ message: '{{vault:MCP_TOKEN}}' });
    await waitFor(() => gate.approvals.pending().length === 1, 5_000);
    const [request] = gate.approvals.pending();
    expect(request!.reason).toMatch(/to MCP server everything, not among its bindings \(other\)/);
    gate.approvals.answer(request!.id, 'deny', 'test');
    expect((await pending).result.content).toMatch(/denied/);
  });
});
