import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Tool, ToolContext } from '../agent/tool.js';
import { ToolRegistry } from '../agent/tool-registry.js';
import { MessageBus } from '../bus/message-bus.js';
import type { ApprovalRequest } from '../bus/messages.js';
import { openStoresAt, type Stores } from '../store/open-stores.js';
import { createExecTool } from '../tools/exec/exec-tool.js';
import { toolsSectionSchema, toToolsConfig } from '../tools/tools-config.js';
import { defaultWebConfig } from '../tools/web-config.js';
import { createWebFetchTool } from '../tools/web-fetch/web-fetch.js';
import { createVaultService, type VaultService } from '../vault/vault-service.js';
import { createGate, type Gate } from './create-gate.js';
import { gateSectionSchema, toGateConfig } from './gate-config.js';
import { Redactor } from './redactor.js';

const VALUE = 'hunter2-s3cr3t-Token';
const base64 = Buffer.from(VALUE).toString('base64');

let server: Server;
let base: string;
const seen: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push({ url: request.url ?? '', headers: request.headers });
    response
      .writeHead(200, { 'content-type': 'text/plain' })
      .end(`you sent ${request.headers['x-token'] ?? request.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const open: Array<{ stores: Stores; gate: Gate }> = [];
afterEach(() => {
  for (const { stores, gate } of open.splice(0)) {
    gate.close();
    stores.close();
  }
  seen.length = 0;
});

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'wren-vault-gate-'));
  const stores = openStoresAt(join(dir, 'wren.db'));
  const redactor = new Redactor();
  const key = Buffer.alloc(32, 7);
  const vault: VaultService = createVaultService({ store: stores.vault, key: () => key, redactor });
  const gate = createGate({
    config: () => toGateConfig(gateSectionSchema.parse({ mode: 'auto' })),
    stores,
    bus: new MessageBus(),
    redactor,
    vault,
  });
  open.push({ stores, gate });
  const registry = new ToolRegistry();
  const redact = (text: string) => redactor.text(text);
  registry.register(
    createExecTool({
      config: () => toToolsConfig(toolsSectionSchema.parse({ exec: { sandbox: 'none' } })).exec,
      redact,
    }),
  );
  const port = new URL(base).port;
  registry.register(createWebFetchTool({ ...defaultWebConfig().fetch, allow: [`127.0.0.1:${port}`] }));
  const ran: Array<Record<string, unknown>> = [];
  const plain: Tool = {
    name: 'note',
    description: 'note',
    parameters: { type: 'object', additionalProperties: true },
    risk: 'safe',
    async execute(args) {
      ran.push(args);
      return { content: 'noted' };
    },
  };
  registry.register(plain);
  const ctx: ToolContext = {
    sessionId: 's1',
    channel: 'cli',
    chatId: 'terminal',
    senderId: 'owner',
    isOwner: true,
    interactive: true,
    workspace: dir,
  };
  let id = 0;
  const call = (name: string, args: Record<string, unknown>) =>
    registry.invoke(
      { id: `c${++id}`, name, arguments: JSON.stringify(args) },
      ctx,
      new AbortController().signal,
      gate.beforeToolCall,
      gate.afterToolCall,
    );
  const nextRequest = async (): Promise<ApprovalRequest> => {
    for (;;) {
      const [pending] = gate.approvals.pending();
      if (pending) return pending;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  const auditText = () => JSON.stringify(gate.audit.list());
  return { dir, stores, vault, gate, call, nextRequest, auditText, ran };
}

describe('the gate and the vault', () => {
  it('passes a secret in an exec env to the command, and redacts it from the output and the audit', async () => {
    const kit = setup();
    kit.vault.set('API_TOKEN', VALUE, { programs: ['printf'] });
    const outcome = await kit.call('exec', {
      command: 'printf %s "$API_TOKEN" > out.txt; printf "got %s" "$API_TOKEN"',
      env: { API_TOKEN: '{{vault:API_TOKEN}}' },
    });
    expect(outcome.result.isError).toBeFalsy();
    expect(readFileSync(join(kit.dir, 'out.txt'), 'utf8')).toBe(VALUE);
    expect(outcome.result.content).toContain('got [redacted]');
    expect(JSON.stringify(outcome)).not.toContain(VALUE);
    expect(outcome.args?.['env']).toEqual({ API_TOKEN: '{{vault:API_TOKEN}}' });
    expect(kit.auditText()).toContain('{{vault:API_TOKEN}}');
    expect(kit.auditText()).not.toContain(VALUE);
    expect(kit.vault.get('API_TOKEN')?.usedAt).toBeDefined();
  });

  it('a reference in the command becomes a variable, never shell source', async () => {
    const kit = setup();
    kit.vault.set('QUOTED', `it's "$HOME" ${VALUE}`, { programs: ['printf'] });
    const outcome = await kit.call('exec', { command: 'printf %s "{{vault:QUOTED}}" > out.txt' });
    expect(outcome.result.isError).toBeFalsy();
    expect(readFileSync(join(kit.dir, 'out.txt'), 'utf8')).toBe(`it's "$HOME" ${VALUE}`);
  });

  it('sends a secret in a web_fetch header to its bound host, and the result is redacted', async () => {
    const kit = setup();
    kit.vault.set('API_TOKEN', VALUE, { hosts: ['127.0.0.1'] });
    const outcome = await kit.call('web_fetch', {
      url: `${base}/api`,
      headers: { 'x-token': '{{vault:API_TOKEN}}' },
    });
    expect(outcome.result.isError).toBeFalsy();
    expect(seen.at(-1)?.headers['x-token']).toBe(VALUE);
    expect(outcome.result.content).toContain('you sent [redacted]');
    expect(JSON.stringify(outcome)).not.toContain(VALUE);
  });

  it('a reference in the URL query of a bound host reaches it; the final URL is redacted', async () => {
    const kit = setup();
    kit.vault.set('API_TOKEN', VALUE, { hosts: ['127.0.0.1'] });
    const outcome = await kit.call('web_fetch', { url: `${base}/q?key={{vault:API_TOKEN}}` });
    expect(outcome.result.isError).toBeFalsy();
    expect(seen.at(-1)?.url).toBe(`/q?key=${encodeURIComponent(VALUE)}`);
    expect(JSON.stringify(outcome)).not.toContain(VALUE);
  });

  it('sending it to a host it is not bound to asks the owner, showing the reference only', async () => {
    const kit = setup();
    kit.vault.set('API_TOKEN', VALUE, { hosts: ['api.example.com'] });
    const pending = kit.call('web_fetch', {
      url: `${base}/x`,
      headers: { 'x-token': '{{vault:API_TOKEN}}' },
    });
    const request = await kit.nextRequest();
    expect(request.reason).toMatch(/vault secret API_TOKEN to host 127\.0\.0\.1, not among its bindings/);
    expect(request.args).toContain('{{vault:API_TOKEN}}');
    expect(JSON.stringify(request)).not.toContain(VALUE);
    expect(request.choices).toEqual(['once', 'deny']);
    kit.gate.approvals.answer(request.id, 'deny', 'test');
    const outcome = await pending;
    expect(outcome.result.content).toMatch(/denied/);
    expect(seen).toHaveLength(0);
  });

  it('a tainted session cannot use a bound secret without the owner', async () => {
    const kit = setup();
    kit.vault.set('API_TOKEN', VALUE, { hosts: ['127.0.0.1'] });
    kit.gate.taint.markUntrusted('s1', 'web_fetch');
    const pending = kit.call('web_fetch', {
      url: `${base}/x`,
      headers: { 'x-token': '{{vault:API_TOKEN}}' },
    });
    const request = await kit.nextRequest();
    expect(request.reason).toMatch(/session that read untrusted content/);
    kit.gate.approvals.answer(request.id, 'once', 'test');
    const outcome = await pending;
    expect(outcome.result.isError).toBeFalsy();
    expect(seen.at(-1)?.headers['x-token']).toBe(VALUE);
  });

  it('echo of a secret asks (echo is not bound); approved, its output is redacted', async () => {
    const kit = setup();
    kit.vault.set('API_TOKEN', VALUE, { programs: ['curl'] });
    // A standing grant for echo does not cover a secret leaving its bindings.
    kit.gate.grants.add({ tool: 'exec', target: 'echo', scope: 'always', createdBy: 'test' });
    const pending = kit.call('exec', { command: 'echo {{vault:API_TOKEN}}' });
    const request = await kit.nextRequest();
    expect(request.reason).toMatch(/program echo, not among its bindings \(curl\)/);
    kit.gate.approvals.answer(request.id, 'once', 'test');
    const outcome = await pending;
    expect(outcome.result.content).toContain('[redacted]');
    expect(outcome.result.content).not.toContain(VALUE);
  });

  it('base64 of the secret in a command is redacted too', async () => {
    const kit = setup();
    kit.vault.set('API_TOKEN', VALUE, { programs: ['printf', 'base64'] });
    const outcome = await kit.call('exec', { command: 'printf %s "{{vault:API_TOKEN}}" | base64' });
    expect(outcome.result.isError).toBeFalsy();
    expect(outcome.result.content).not.toContain(base64.replace(/=+$/, ''));
    expect(outcome.result.content).toContain('[redacted]');
  });

  it('an unknown name is denied under rule secrets; a tool that takes no vault references is denied', async () => {
    const kit = setup();
    const unknown = await kit.call('exec', { command: 'printf %s "{{vault:NOPE}}"' });
    expect(unknown.result.content).toMatch(/No vault secret named NOPE/);
    kit.vault.set('API_TOKEN', VALUE, {});
    const other = await kit.call('note', { text: '{{vault:API_TOKEN}}' });
    expect(other.result.content).toMatch(/note does not take \{\{vault:…\}\} references/);
    expect(kit.ran).toHaveLength(0);
    const rules = kit.gate.audit.list().map((entry) => entry.rule);
    expect(rules).toEqual(['secrets', 'secrets']);
  });

  it('an exec call whose programs cannot all be bound asks for each one outside (printf bound, cat not)', async () => {
    const kit = setup();
    kit.vault.set('API_TOKEN', VALUE, { programs: ['printf'] });
    const pending = kit.call('exec', { command: 'printf %s "{{vault:API_TOKEN}}" | cat' });
    const request = await kit.nextRequest();
    expect(request.reason).toMatch(/program cat, not among its bindings/);
    kit.gate.approvals.answer(request.id, 'deny', 'test');
    await pending;
  });

  it('a reference in the host part leaves no host to check: it asks', async () => {
    const kit = setup();
    kit.vault.set('HOSTY', 'evil.example.com', { hosts: ['127.0.0.1'] });
    const pending = kit.call('web_fetch', { url: 'http://{{vault:HOSTY}}/x' });
    const request = await kit.nextRequest();
    expect(request.reason).toMatch(/where the gate cannot tell \(no host known\)/);
    kit.gate.approvals.answer(request.id, 'deny', 'test');
    await pending;
    expect(seen).toHaveLength(0);
  });
});
