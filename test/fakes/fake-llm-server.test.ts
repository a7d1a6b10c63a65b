import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLanguageModel } from '../../src/llm/create-language-model.js';
import { EndpointPool } from '../../src/llm/endpoint-pool.js';
import type { ModelRequest } from '../../src/llm/types.js';
import { type FakeLlmServer, startFakeLlmServer } from './fake-llm-server.js';

let llm: FakeLlmServer;
beforeAll(async () => {
  llm = await startFakeLlmServer();
});
afterAll(() => llm.close());
beforeEach(() => llm.reset());

const PROMPT = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] }];

describe('fake LLM server: non-streaming JSON through the real SDK parsers', () => {
  it.each(['openai', 'anthropic', 'gemini'] as const)(
    '%s answers text, tool calls, usage and finish',
    async (protocol) => {
      llm.script({
        text: 'Looking.',
        toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }],
        usage: { input: 12, output: 5 },
      });
      const result = await (await createLanguageModel(llm.endpoint(protocol))).doGenerate({ prompt: PROMPT });
      expect(llm.lastRequest?.stream).toBe(false);
      expect(result.content).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ type: 'text', text: 'Looking.' }),
          expect.objectContaining({ type: 'tool-call', toolName: 'list_dir', input: '{"path":"."}' }),
        ]),
      );
      expect(result.finishReason.unified).toBe('tool-calls');
      expect(result.usage.inputTokens.total).toBe(12);
      expect(result.usage.outputTokens.total).toBe(5);
    },
  );

  it.each(['openai', 'anthropic', 'gemini'] as const)(
    '%s errors carry status, body and Retry-After',
    async (protocol) => {
      llm.script({ status: 429, retryAfter: '5', errorMessage: 'Too many requests' });
      const error = await (await createLanguageModel(llm.endpoint(protocol)))
        .doGenerate({ prompt: PROMPT })
        .then(
          () => undefined,
          (e: unknown) =>
            e as { statusCode?: number; responseHeaders?: Record<string, string>; responseBody?: string },
        );
      expect(error?.statusCode).toBe(429);
      expect(error?.responseHeaders?.['retry-after']).toBe('5');
      expect(error?.responseBody).toContain('Too many requests');
    },
  );
});

describe('fake LLM server: scripting', () => {
  it('consumes steps in order, honouring match, then falls back to the handler', async () => {
    const pool = new EndpointPool({ endpoints: [llm.endpoint('openai')] });
    const ask = async (text: string, protocol: 'openai' | 'gemini' = 'openai') => {
      const model = protocol === 'openai' ? pool : new EndpointPool({ endpoints: [llm.endpoint('gemini')] });
      const request: ModelRequest = { system: [], messages: [{ role: 'user', content: text }] };
      for await (const event of model.stream(request)) if (event.type === 'done') return event.result.text;
      return undefined;
    };
    llm.script({ text: 'for gemini', match: { protocol: 'gemini' } }, { text: 'first' });
    expect(await ask('a')).toBe('first');
    expect(llm.pending()).toBe(1);
    expect(await ask('b')).toBe('ok');
    expect(await ask('c', 'gemini')).toBe('for gemini');
    llm.setHandler((request) => ({ text: `echo: ${request.lastUserText}` }));
    expect(await ask('hello there')).toBe('echo: hello there');
    llm.setHandler();
    expect(await ask('d')).toBe('ok');
    expect(llm.requests.map((request) => request.protocol)).toEqual([
      'openai',
      'openai',
      'gemini',
      'openai',
      'openai',
    ]);
  });

  it('lists models for probing and 404s unknown routes', async () => {
    const openai = await (await fetch(`${llm.url}/v1/models`)).json();
    expect(openai).toMatchObject({ object: 'list', data: [{ id: 'fake-model' }] });
    const ollama = await (await fetch(`${llm.url}/api/tags`)).json();
    expect(ollama).toMatchObject({ models: [{ name: 'fake-model' }] });
    const gemini = await (await fetch(`${llm.url}/v1beta/models`)).json();
    expect(gemini).toMatchObject({ models: [{ name: 'models/fake-model' }] });
    expect((await fetch(`${llm.url}/v1/embeddings`, { method: 'POST', body: '{}' })).status).toBe(404);
    expect(llm.requests).toHaveLength(0);
  });

  it('closes with a hanging answer still open', async () => {
    const local = await startFakeLlmServer();
    local.script({ hang: true });
    const pending = fetch(`${local.baseUrls.openai}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'x', messages: [] }),
    }).catch((error: unknown) => error);
    while (local.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await local.close();
    expect(await pending).toBeInstanceOf(Error);
  });

  it('stays healthy over 250 sequential streamed turns', async () => {
    llm.setHandler((request) => ({ text: `turn ${request.lastUserText} `.repeat(20) }));
    const endpoints = [
      llm.endpoint('openai'),
      llm.endpoint('anthropic', { name: 'b' }),
      llm.endpoint('gemini', { name: 'c' }),
    ];
    const pool = new EndpointPool({ endpoints });
    let good = 0;
    for (let i = 0; i < 250; i++) {
      const request: ModelRequest = {
        system: [{ text: 'sys' }],
        messages: [{ role: 'user', content: String(i) }],
      };
      for await (const event of pool.stream(request)) {
        if (event.type === 'done' && event.result.text === `turn ${i} `.repeat(20)) good++;
      }
    }
    expect(good).toBe(250);
    expect(new Set(llm.requests.map((request) => request.protocol))).toEqual(
      new Set(['openai', 'anthropic', 'gemini']),
    );
  });
});
