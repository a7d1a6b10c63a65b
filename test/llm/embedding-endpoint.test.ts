import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memorySearchCheck } from '../../src/cli/commands/doctor.js';
import { loadConfig, resolveEndpoints } from '../../src/config/load-config.js';
import { pickEmbeddingEndpoint } from '../../src/llm/embedding-endpoint.js';
import { EndpointPool } from '../../src/llm/endpoint-pool.js';
import { testEndpoint } from '../../src/llm/test-endpoint.js';
import type { ModelEvent } from '../../src/llm/types.js';
import { type FakeEmbeddingServer, startFakeEmbeddingServer } from '../fakes/fake-embedding-server.js';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/fake-llm-server.js';

let llm: FakeLlmServer;
let embeddings: FakeEmbeddingServer;
beforeAll(async () => {
  llm = await startFakeLlmServer();
  embeddings = await startFakeEmbeddingServer({ apiKey: 'sk-embed-0123456789' });
});
afterAll(async () => {
  await llm.close();
  await embeddings.close();
});

async function drain(stream: AsyncIterable<ModelEvent>) {
  for await (const event of stream) if (event.type === 'done') return event.result;
  throw new Error('no done event');
}

function home(config: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'wren-embed-config-'));
  writeFileSync(join(dir, 'config.yaml'), config);
  return dir;
}

describe('embedding models', () => {
  it('are never asked to chat, whatever tag a request names', async () => {
    const embed = embeddings.endpoint({ apiKey: 'sk-embed-0123456789', contextWindow: 99_999 });
    const pool = new EndpointPool({ endpoints: [embed, llm.endpoint('openai', { name: 'main' })] });
    llm.script({ text: 'from chat' }, { text: 'from chat again' });
    // No endpoint carries `small`: every enabled chat endpoint may answer, the embedding one never.
    expect(
      await drain(pool.stream({ system: [], messages: [{ role: 'user', content: 'hi' }], tag: 'small' })),
    ).toMatchObject({
      text: 'from chat',
      endpoint: 'main',
    });
    expect(
      await drain(pool.stream({ system: [], messages: [{ role: 'user', content: 'hi' }], tag: 'embedding' })),
    ).toMatchObject({ endpoint: 'main' });
    expect(embeddings.strayRequests).toEqual([]);
    const alone = new EndpointPool({ endpoints: [embed] });
    expect(
      await drain(alone.stream({ system: [], messages: [{ role: 'user', content: 'hi' }] })),
    ).toMatchObject({
      stopReason: 'error',
      errorMessage: expect.stringMatching(/Only an embedding model .* Add a chat model/),
    });
    // Its limits are not the chat model's: the defaults stand.
    expect(alone.limits().contextWindow).not.toBe(99_999);
  });

  it('are tested with an embedding request, and chat models never get one', async () => {
    const ok = await testEndpoint(embeddings.endpoint({ apiKey: 'sk-embed-0123456789' }));
    expect(ok).toMatchObject({ ok: true, reply: '14 dimensions' });
    const refused = await testEndpoint(embeddings.endpoint({ apiKey: 'sk-wrong-4242424242' }));
    expect(refused.ok).toBe(false);
    expect(refused.error).toMatch(/rejected the API key \(HTTP 401\)/);
    expect(refused.error).not.toContain('sk-wrong-4242424242');
    llm.script({ text: 'ok' });
    expect(await testEndpoint(llm.endpoint('openai'))).toMatchObject({ ok: true, reply: 'ok' });
    expect(embeddings.requests.map((request) => request.input)).toEqual([['ok'], ['ok']]);
  });

  it('are picked by tag (enabled, lowest priority first) and validated in config.yaml', () => {
    const config = loadConfig(
      home(`models:
  - name: main
    provider: openai
    api_key: sk-x
    model: gpt-4o-mini
  - name: local-embed
    provider: ollama
    model: nomic-embed-text
    tags: [embedding]
    priority: 1
  - name: off
    provider: openai
    api_key: sk-x
    model: text-embedding-3-large
    tags: [embedding]
    enabled: false
  - name: cloud-embed
    provider: openai
    api_key: sk-x
    model: text-embedding-3-small
    tags: [embedding]
`),
      {},
    );
    expect(pickEmbeddingEndpoint(resolveEndpoints(config))?.name).toBe('cloud-embed');
    expect(pickEmbeddingEndpoint(resolveEndpoints(config).slice(0, 2))?.name).toBe('local-embed');
    expect(pickEmbeddingEndpoint(resolveEndpoints(config).slice(0, 1))).toBeUndefined();
    expect(() =>
      loadConfig(
        home(
          'models:\n  - name: e\n    provider: anthropic\n    api_key: k\n    model: x\n    tags: [embedding, default]\n',
        ),
        {},
      ),
    ).toThrow(/models\[0\]\.tags.*never chats[\s\S]*models\[0\]\.protocol.*OpenAI-compatible \/embeddings/);
  });

  it('make wren doctor check that sqlite-vec loads (a warning, not a failure, when it does not)', () => {
    const withEmbedding = loadConfig(
      home(
        `models:\n  - name: e\n    provider: ollama\n    model: nomic-embed-text\n    tags: [embedding]\n`,
      ),
      {},
    );
    expect(memorySearchCheck(withEmbedding)).toMatchObject({
      id: 'memory.semantic_search',
      status: 'ok',
      message: expect.stringMatching(/keywords and meaning \(e, sqlite-vec v0\.1\.\d+\)/),
    });
    expect(
      memorySearchCheck(withEmbedding, () => ({ ok: false, reason: 'cannot open vec0.so' })),
    ).toMatchObject({
      status: 'warn',
      message: 'sqlite-vec could not load (cannot open vec0.so): memory search uses keywords only',
    });
    expect(memorySearchCheck(loadConfig(home('{}\n'), {}))).toBeUndefined();
  });
});
