import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeLocalModels } from '../../src/llm/probe-local-models.js';
import { testEndpoint } from '../../src/llm/test-endpoint.js';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/fake-llm-server.js';

let llm: FakeLlmServer;
let closedPort: number;
beforeAll(async () => {
  llm = await startFakeLlmServer({ models: ['qwen3:8b', 'llama3.2:3b'] });
  const closed = await startFakeLlmServer();
  closedPort = closed.port;
  await closed.close();
});
afterAll(() => llm.close());

describe('probeLocalModels', () => {
  it('finds servers that answer (Ollama tags and OpenAI model lists) and skips dead ports', async () => {
    const found = await probeLocalModels({
      targets: [
        { preset: 'ollama', baseUrl: `${llm.url}/v1`, kind: 'ollama' },
        { preset: 'lmstudio', baseUrl: `http://127.0.0.1:${closedPort}/v1`, kind: 'openai' },
        { preset: 'vllm', baseUrl: `${llm.url}/v1`, kind: 'openai' },
      ],
    });
    expect(found).toEqual([
      { preset: 'ollama', baseUrl: `${llm.url}/v1`, models: ['qwen3:8b', 'llama3.2:3b'] },
      { preset: 'vllm', baseUrl: `${llm.url}/v1`, models: ['qwen3:8b', 'llama3.2:3b'] },
    ]);
  });

  it('leaves out servers that answer with something else', async () => {
    const found = await probeLocalModels({
      targets: [{ preset: 'llamacpp', baseUrl: `${llm.url}/elsewhere`, kind: 'openai' }],
    });
    expect(found).toEqual([]);
  });

  it('resolves with nothing when aborted', async () => {
    const found = await probeLocalModels(
      { targets: [{ preset: 'ollama', baseUrl: `${llm.url}/v1`, kind: 'ollama' }] },
      AbortSignal.abort(),
    );
    expect(found).toEqual([]);
  });
});

describe('testEndpoint', () => {
  it('sends a tiny request and reports ok with the reply and latency', async () => {
    llm.script({ text: 'ok' });
    const result = await testEndpoint(llm.endpoint('anthropic'));
    expect(result).toMatchObject({ ok: true, reply: 'ok' });
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
    expect(llm.lastRequest?.lastUserText).toBe('Reply with: ok');
    expect(llm.lastRequest?.body.max_tokens).toBe(16);
  });

  it.each([
    ['openai', 'HTTP 401'],
    ['anthropic', 'HTTP 401'],
    ['gemini', 'HTTP 400'], // Gemini refuses a wrong key with 400 API_KEY_INVALID
  ] as const)('reports a refusal with advice and without the key (%s)', async (protocol, status) => {
    const guarded = await startFakeLlmServer({ apiKey: 'right-key' });
    try {
      const result = await testEndpoint(
        guarded.endpoint(protocol, { name: 'work', apiKey: 'wrong-key-123' }),
      );
      expect(result.ok).toBe(false);
      expect(result.error).toContain(`rejected the API key (${status})`);
      expect(result.error).toContain('endpoint "work"');
      expect(result.error).not.toContain('wrong-key-123');
    } finally {
      await guarded.close();
    }
  });

  it('reports an unreachable server and a cancelled test', async () => {
    const dead = await testEndpoint(
      llm.endpoint('gemini', { baseUrl: `http://127.0.0.1:${closedPort}/v1beta` }),
    );
    expect(dead).toMatchObject({ ok: false });
    expect(dead.error).toContain('connection refused');
    const cancelled = await testEndpoint(llm.endpoint('openai'), AbortSignal.abort());
    expect(cancelled).toMatchObject({ ok: false, error: 'Test cancelled.' });
  });
});
