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

describe('fake LLM server: Gemini as the Generative Language API sends it', () => {
  const USER = { role: 'user', parts: [{ text: 'hi' }] };
  // biome-ignore lint/suspicious/noExplicitAny: tests dig into wire bodies freely.
  const json = (response: Response): Promise<any> => response.json();
  const post = (path: string, body: unknown, key = 'fake-key', server = llm) =>
    fetch(`${server.baseUrls.gemini}/models/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { 'x-goog-api-key': key } : {}) },
      body: JSON.stringify(body),
    });

  it('streams GenerateContentResponse chunks as CRLF-framed SSE, usage in each, the finish on the last', async () => {
    llm.script({
      text: 'Hello there, this reply comes in pieces.',
      toolCalls: [
        { name: 'read_file', arguments: { path: 'a.md' } },
        { name: 'list_dir', arguments: { path: '.' } },
      ],
      usage: { input: 9, output: 4, thoughts: 3 },
    });
    const response = await post('fake-model:streamGenerateContent?alt=sse', { contents: [USER] });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const raw = await response.text();
    const events = raw.split('\r\n\r\n').filter(Boolean);
    expect(events.every((event) => event.startsWith('data: {'))).toBe(true);
    const chunks = events.map((event) => JSON.parse(event.slice(6)));
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.every((chunk) => chunk.usageMetadata.promptTokenCount === 9)).toBe(true);
    expect(chunks.slice(0, -1).some((chunk) => 'candidatesTokenCount' in chunk.usageMetadata)).toBe(false);
    const last = chunks.at(-1);
    expect(last.usageMetadata).toMatchObject({
      candidatesTokenCount: 4,
      thoughtsTokenCount: 3,
      totalTokenCount: 16,
    });
    expect(last.candidates[0].finishReason).toBe('STOP');
    const parts = chunks.flatMap((chunk) => chunk.candidates[0].content.parts);
    expect(parts.flatMap((part) => (part.text ? [part.text] : [])).join('')).toBe(
      'Hello there, this reply comes in pieces.',
    );
    expect(parts.filter((part) => part.functionCall)).toEqual([
      { functionCall: { name: 'read_file', args: { path: 'a.md' } }, thoughtSignature: expect.any(String) },
      { functionCall: { name: 'list_dir', args: { path: '.' } } },
    ]);
  });

  it('streams a JSON array without alt=sse and answers generateContent with one response', async () => {
    llm.script({ text: 'first reply' }, { text: 'second reply', stopReason: 'length' });
    const array = await post('fake-model:streamGenerateContent', { contents: [USER] });
    expect(array.headers.get('content-type')).toBe('application/json');
    const chunks = (await array.json()) as Array<{ candidates: Array<{ finishReason?: string }> }>;
    expect(Array.isArray(chunks)).toBe(true);
    expect(chunks.at(-1)!.candidates[0]!.finishReason).toBe('STOP');
    const single = await json(await post('fake-model:generateContent', { contents: [USER] }));
    expect(single.candidates).toEqual([
      { content: { parts: [{ text: 'second reply' }], role: 'model' }, finishReason: 'MAX_TOKENS', index: 0 },
    ]);
    expect(llm.requests.map((request) => request.stream)).toEqual([true, false]);
  });

  it('blocks a prompt with promptFeedback and no candidates, and withholds content on SAFETY', async () => {
    llm.script({ blockReason: 'SAFETY' }, { text: 'Step one is', finishReason: 'SAFETY' });
    const blocked = await json(await post('fake-model:generateContent', { contents: [USER] }));
    expect(blocked.candidates).toBeUndefined();
    expect(blocked.promptFeedback.blockReason).toBe('SAFETY');
    expect(blocked.promptFeedback.safetyRatings).toContainEqual({
      category: 'HARM_CATEGORY_DANGEROUS_CONTENT',
      probability: 'HIGH',
      blocked: true,
    });
    const stream = await (
      await post('fake-model:streamGenerateContent?alt=sse', { contents: [USER] })
    ).text();
    const last = JSON.parse(stream.trim().split('\r\n\r\n').at(-1)!.slice(6));
    expect(last.candidates[0].content).toBeUndefined();
    expect(last.candidates[0].finishReason).toBe('SAFETY');
  });

  it("errors in Google's shape: RetryInfo and QuotaFailure details, no Retry-After header", async () => {
    llm.script({ status: 429, retryDelay: '7s', errorMessage: 'Quota exceeded.' }, { status: 503 });
    const limited = await post('fake-model:streamGenerateContent?alt=sse', { contents: [USER] });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBeNull();
    const { error } = await json(limited);
    expect(error).toMatchObject({ code: 429, message: 'Quota exceeded.', status: 'RESOURCE_EXHAUSTED' });
    expect(error.details).toContainEqual({
      '@type': 'type.googleapis.com/google.rpc.RetryInfo',
      retryDelay: '7s',
    });
    expect(error.details.map((detail: Record<string, unknown>) => detail['@type'])).toContain(
      'type.googleapis.com/google.rpc.QuotaFailure',
    );
    const unavailable = await json(await post('fake-model:generateContent', { contents: [USER] }));
    expect(unavailable.error).toMatchObject({ code: 503, status: 'UNAVAILABLE' });
  });

  it('refuses keys as Gemini does: 403 without one, 400 API_KEY_INVALID for a wrong one, never echoed', async () => {
    const guarded = await startFakeLlmServer({ apiKey: 'AIza-right' });
    try {
      const none = await post('m:generateContent', { contents: [USER] }, '', guarded);
      expect(none.status).toBe(403);
      expect((await json(none)).error.status).toBe('PERMISSION_DENIED');
      const wrong = await post('m:generateContent', { contents: [USER] }, 'AIza-wrong', guarded);
      expect(wrong.status).toBe(400);
      const body = await wrong.text();
      expect(body).not.toContain('AIza-wrong');
      expect(JSON.parse(body).error).toMatchObject({
        code: 400,
        status: 'INVALID_ARGUMENT',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' }],
      });
      const query = await fetch(`${guarded.baseUrls.gemini}/models/m:generateContent?key=AIza-right`, {
        method: 'POST',
        body: JSON.stringify({ contents: [USER] }),
      });
      expect(query.status).toBe(200);
    } finally {
      await guarded.close();
    }
  });

  it('refuses requests Gemini would refuse, without using up the script', async () => {
    llm.script({ text: 'kept for a valid request' });
    const call = (name: string, extra: Record<string, unknown> = {}) => ({
      role: 'model',
      parts: [{ functionCall: { name, args: {} }, ...extra }],
    });
    const reply = (name: string) => ({ role: 'user', parts: [{ functionResponse: { name, response: {} } }] });
    const tool = (name: string, parameters: unknown = { type: 'object' }) => ({
      functionDeclarations: [{ name, description: '', parameters }],
    });
    const cases: Array<[string, unknown, string]> = [
      ['fake-model', {}, 'contents is not specified'],
      ['fake-model', { contents: [{ role: 'user', parts: [] }] }, 'parts must not be empty'],
      ['fake-model', { contents: [{ role: 'system', parts: [{ text: 'x' }] }] }, 'valid role'],
      [
        'fake-model',
        { contents: [USER, { role: 'model', parts: [{ text: 'ok' }] }, call('a')] },
        'function call turn comes immediately after a user turn',
      ],
      [
        'fake-model',
        { contents: [USER, { ...call('a'), parts: [...call('a').parts, ...call('b').parts] }, reply('a')] },
        'number of function response parts is equal to the number of function call parts',
      ],
      ['fake-model', { contents: [USER, reply('a')] }, 'function response turn comes immediately after'],
      ['fake-model', { contents: [USER], tools: [tool('mcp server/tool')] }, 'Invalid function name'],
      [
        'fake-model',
        { contents: [USER], tools: [tool('ok', { type: 'object', additionalProperties: false })] },
        'Unknown name "additionalProperties"',
      ],
      ['gemini-3-pro-preview', { contents: [USER, call('a'), reply('a')] }, 'missing a thought_signature'],
    ];
    for (const [model, body, expected] of cases) {
      const response = await post(`${model}:generateContent`, body);
      expect(response.status).toBe(400);
      const { error } = await json(response);
      expect(error.status).toBe('INVALID_ARGUMENT');
      expect(error.message).toContain(expected);
    }
    expect(llm.pending()).toBe(1);
    const signed = call('a', { thoughtSignature: 'skip_thought_signature_validator' });
    const accepted = await post('gemini-3-pro-preview:generateContent', {
      contents: [USER, signed, reply('a')],
    });
    expect(accepted.status).toBe(200);
    expect(llm.pending()).toBe(0);
  });
});
