import { afterEach, describe, expect, it } from 'vitest';
import { COPILOT_EDITOR_HEADERS } from '../../src/llm/copilot-auth.js';
import type { EndpointConfig } from '../../src/llm/endpoint.js';
import { EndpointPool } from '../../src/llm/endpoint-pool.js';
import { streamEndpoint } from '../../src/llm/stream-endpoint.js';
import { testEndpoint } from '../../src/llm/test-endpoint.js';
import type { ModelEvent, ModelRequest, ModelResult } from '../../src/llm/types.js';
import {
  type FakeCopilotServer,
  type FakeCopilotServerOptions,
  startFakeCopilotServer,
} from '../fakes/fake-copilot-server.js';

let server: FakeCopilotServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A 127.0.0.1 address nothing listens on: a request that went to the configured base instead would fail. */
async function closedBase(): Promise<string> {
  const closed = await startFakeCopilotServer();
  await closed.close();
  return `${closed.url}/never`;
}

async function copilotEndpoint(
  fake: FakeCopilotServerOptions = {},
  overrides: Partial<EndpointConfig> = {},
): Promise<{ endpoint: EndpointConfig; server: FakeCopilotServer }> {
  server = await startFakeCopilotServer(fake);
  const endpoint: EndpointConfig = {
    name: 'copilot',
    protocol: 'openai',
    baseUrl: server.apiUrl,
    apiKey: server.githubToken,
    model: 'gpt-4.1',
    tags: ['default'],
    priority: 0,
    contextWindow: 64_000,
    maxOutputTokens: 1_024,
    enabled: true,
    headers: { ...COPILOT_EDITOR_HEADERS },
    timeoutMs: 10_000,
    vision: false,
    copilot: { tokenUrl: server.tokenUrl, useTokenApiBase: false },
    ...overrides,
  };
  return { endpoint, server };
}

const ask = (text: string): ModelRequest => ({ system: [], messages: [{ role: 'user', content: text }] });

async function collect(events: AsyncIterable<ModelEvent>): Promise<ModelResult> {
  for await (const event of events) if (event.type === 'done') return event.result;
  throw new Error('no done event');
}

describe('Copilot chat calls', () => {
  it('send the Copilot API token as bearer with the editor headers to <base>/chat/completions, streamed', async () => {
    const { endpoint, server } = await copilotEndpoint();
    server.llm.script({ text: 'Hello from Copilot' });
    const result = await collect(streamEndpoint(endpoint, ask('hi')));
    expect(result).toMatchObject({ text: 'Hello from Copilot', stopReason: 'stop' });
    const chat = server.chats[0]!;
    expect(chat.path).toBe('/api/chat/completions');
    expect(chat.token).toBe(server.apiTokens[0]);
    expect(chat.token).not.toBe(server.githubToken);
    expect(chat.headers['editor-version']).toBe('vscode/1.99.3');
    expect(chat.headers['editor-plugin-version']).toBe('copilot-chat/0.26.7');
    expect(chat.headers['copilot-integration-id']).toBe('vscode-chat');
    expect(chat.headers['user-agent']).toBe('GitHubCopilotChat/0.26.7');
    expect(JSON.parse(chat.body)).toMatchObject({ model: 'gpt-4.1', stream: true });
    expect(server.llm.lastRequest?.lastUserText).toBe('hi');
    expect(chat.headers['copilot-vision-request']).toBeUndefined();
  });

  it('say so when an endpoint with vision may send images', async () => {
    const { endpoint, server } = await copilotEndpoint({}, { vision: true });
    await collect(streamEndpoint(endpoint, ask('look')));
    expect(server.chats[0]?.headers['copilot-vision-request']).toBe('true');
  });

  it('go to the API base the exchange names when base_url was not set', async () => {
    const base = await closedBase();
    const { endpoint, server } = await copilotEndpoint(
      {},
      { baseUrl: base, copilot: { tokenUrl: '', useTokenApiBase: true } },
    );
    endpoint.copilot = { tokenUrl: server.tokenUrl, useTokenApiBase: true };
    const result = await testEndpoint(endpoint);
    expect(result).toMatchObject({ ok: true, reply: 'ok' });
    expect(server.chats.map((chat) => chat.path)).toEqual(['/api/chat/completions']);
  });

  it('reuse one API token across calls', async () => {
    const { endpoint, server } = await copilotEndpoint();
    await collect(streamEndpoint(endpoint, ask('one')));
    await collect(streamEndpoint(endpoint, ask('two')));
    expect(server.exchanges).toHaveLength(1);
    expect(server.chats.map((chat) => chat.token)).toEqual([server.apiTokens[0], server.apiTokens[0]]);
  });

  it('after a 401, exchange a new token and send the call once more', async () => {
    const { endpoint, server } = await copilotEndpoint();
    await collect(streamEndpoint(endpoint, ask('one')));
    server.revokeApiTokens();
    server.llm.script({ text: 'still here' });
    const result = await collect(streamEndpoint(endpoint, ask('two')));
    expect(result.text).toBe('still here');
    expect(server.exchanges).toHaveLength(2);
    expect(server.chats.map((chat) => [chat.status, chat.token])).toEqual([
      [200, server.apiTokens[0]],
      [401, server.apiTokens[0]],
      [200, server.apiTokens[1]],
    ]);
  });

  it('give up after the second 401 with a message that names neither token', async () => {
    const { endpoint, server } = await copilotEndpoint();
    server.revokeApiTokens({ future: true });
    const result = await testEndpoint(endpoint);
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/HTTP 401/);
    expect(result.error).toContain('[redacted]');
    for (const secret of [server.githubToken, ...server.apiTokens])
      expect(result.error).not.toContain(secret);
    expect(server.chats.map((chat) => chat.status)).toEqual([401, 401]);
    expect(server.exchanges).toHaveLength(2);
  });

  it('fail at once (no retries) with the exchange’s advice when the account has no Copilot', async () => {
    const { endpoint, server } = await copilotEndpoint({ copilotAccess: false });
    const pool = new EndpointPool({ endpoints: [endpoint], sleep: async () => {} });
    const result = await collect(pool.stream(ask('hi')));
    expect(result.stopReason).toBe('error');
    expect(result.errorMessage).toMatch(
      /Endpoint "copilot": GitHub gave no Copilot API token .*subscription/,
    );
    expect(server.exchanges).toHaveLength(1);
    expect(server.chats).toHaveLength(0);
  });

  it('tell the user to sign in again when GitHub no longer accepts the GitHub token', async () => {
    const { endpoint } = await copilotEndpoint({}, { apiKey: 'gho_revokedLongAgo0123456789' });
    const result = await testEndpoint(endpoint);
    expect(result.error).toMatch(/HTTP 401.*wren models login copilot/);
    expect(result.error).not.toContain('gho_revokedLongAgo0123456789');
  });

  it('report an unreachable token exchange as such, retried like any network failure', async () => {
    const { endpoint, server } = await copilotEndpoint();
    endpoint.copilot = { tokenUrl: `${await closedBase()}/token`, useTokenApiBase: false };
    const naps: number[] = [];
    const pool = new EndpointPool({
      endpoints: [endpoint],
      sleep: async (ms) => void naps.push(ms),
      random: () => 0,
    });
    const result = await collect(pool.stream(ask('hi')));
    expect(result.errorMessage).toMatch(
      /Endpoint "copilot": Could not reach GitHub's Copilot token exchange/,
    );
    expect(naps).toHaveLength(2);
    expect(server.chats).toHaveLength(0);
  });

  it('survive a refresh in the middle of a conversation through the endpoint pool', async () => {
    const { endpoint, server } = await copilotEndpoint();
    const pool = new EndpointPool({ endpoints: [endpoint] });
    server.llm.script({ text: 'first answer' }, { text: 'second answer' });
    const first = await collect(pool.stream(ask('first question')));
    server.revokeApiTokens();
    const second = await collect(
      pool.stream({
        system: [],
        messages: [
          { role: 'user', content: 'first question' },
          { role: 'assistant', content: first.text },
          { role: 'user', content: 'second question' },
        ],
      }),
    );
    expect([first.text, second.text]).toEqual(['first answer', 'second answer']);
    expect(second.stopReason).toBe('stop');
    expect(server.exchanges).toHaveLength(2);
    expect(pool.health()['copilot']?.lastError).toBeUndefined();
  });
});
