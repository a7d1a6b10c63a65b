import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { failureAction, NetworkError, ProviderError } from '../../src/llm/provider-error.js';
import { streamEndpoint } from '../../src/llm/stream-endpoint.js';
import type { ModelEvent, ModelRequest, ModelResult } from '../../src/llm/types.js';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/fake-llm-server.js';

/** A 1×1 PNG. */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const TOOLS: ModelRequest['tools'] = [
  {
    name: 'read_file',
    description: 'Read a file',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  {
    name: 'list_dir',
    description: 'List a folder',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
];

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return { system: [{ text: 'You are Wren.' }], messages: [{ role: 'user', content: 'hi' }], ...overrides };
}

async function collect(
  events: AsyncIterable<ModelEvent>,
): Promise<{ events: ModelEvent[]; result: ModelResult }> {
  const all: ModelEvent[] = [];
  for await (const event of events) all.push(event);
  const last = all.at(-1);
  if (last?.type !== 'done') throw new Error('stream did not end with done');
  return { events: all, result: last.result };
}

/** The ProviderError a stream throws; fails the test when it throws anything else or nothing. */
async function thrown(events: AsyncIterable<ModelEvent>): Promise<ProviderError> {
  const error = await collect(events).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

let llm: FakeLlmServer;
beforeAll(async () => {
  llm = await startFakeLlmServer();
});
afterAll(() => llm.close());
beforeEach(() => llm.reset());

describe.each(['openai', 'anthropic', 'gemini'] as const)('streamEndpoint over %s', (protocol) => {
  it('streams text in several deltas and reports usage', async () => {
    const text = 'Hello from the fake server, streamed in pieces.';
    llm.script({ text, usage: { input: 21, output: 9 } });
    const { events, result } = await collect(streamEndpoint(llm.endpoint(protocol), request()));
    const deltas = events.filter((event) => event.type === 'text-delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((event) => event.text).join('')).toBe(text);
    expect(result).toEqual({
      text,
      toolCalls: [],
      stopReason: 'stop',
      usage: { inputTokens: 21, outputTokens: 9 },
    });
    expect(llm.lastRequest?.stream).toBe(true);
  });

  it('sends system, messages, tools and max output tokens on the wire', async () => {
    await collect(streamEndpoint(llm.endpoint(protocol), request({ tools: TOOLS, maxOutputTokens: 99 })));
    const sent = llm.lastRequest!;
    expect(sent.system).toBe('You are Wren.');
    expect(sent.lastUserText).toBe('hi');
    expect(sent.toolNames).toEqual(['read_file', 'list_dir']);
    expect(sent.model).toBe('fake-model');
    expect(JSON.stringify(sent.body)).toMatch(/"(max_tokens|maxOutputTokens)":99/);
  });

  it('forbids tool calls on the wire when toolChoice is none', async () => {
    await collect(streamEndpoint(llm.endpoint(protocol), request({ tools: TOOLS, toolChoice: 'none' })));
    const body = JSON.stringify(llm.lastRequest!.body);
    const forbidden = {
      openai: /"tool_choice":"none"/,
      anthropic: /"tool_choice":\{"type":"none"\}|^(?!.*"tools")/,
      gemini: /"mode":"NONE"/,
    }[protocol];
    expect(body).toMatch(forbidden);
  });

  it('returns a tool call with its raw arguments', async () => {
    llm.script({ toolCalls: [{ name: 'read_file', arguments: { path: 'notes/today.md' } }] });
    const { events, result } = await collect(
      streamEndpoint(llm.endpoint(protocol), request({ tools: TOOLS })),
    );
    const calls = events.filter((event) => event.type === 'tool-call').map((event) => event.call);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.name).toBe('read_file');
    expect(calls[0]!.id).not.toBe('');
    expect(JSON.parse(calls[0]!.arguments)).toEqual({ path: 'notes/today.md' });
    expect(result.stopReason).toBe('tool_calls');
    expect(result.toolCalls).toEqual(calls);
  });

  it('returns parallel tool calls in order, with text before them', async () => {
    llm.script({
      text: 'Let me look.',
      toolCalls: [
        { name: 'read_file', arguments: '{"path":"a.md"}' },
        { name: 'list_dir', arguments: { path: 'docs' } },
      ],
    });
    const { result } = await collect(streamEndpoint(llm.endpoint(protocol), request({ tools: TOOLS })));
    expect(result.text).toBe('Let me look.');
    expect(result.toolCalls.map((call) => [call.name, JSON.parse(call.arguments)])).toEqual([
      ['read_file', { path: 'a.md' }],
      ['list_dir', { path: 'docs' }],
    ]);
    expect(new Set(result.toolCalls.map((call) => call.id)).size).toBe(2);
    expect(result.stopReason).toBe('tool_calls');
  });

  it('maps a max-tokens stop to length', async () => {
    llm.script({ text: 'This reply was cut', stopReason: 'length' });
    const { result } = await collect(streamEndpoint(llm.endpoint(protocol), request()));
    expect(result.stopReason).toBe('length');
  });

  it('reports cached input tokens', async () => {
    llm.script({ text: 'ok', usage: { input: 100, output: 2, cachedInput: 80 } });
    const { result } = await collect(streamEndpoint(llm.endpoint(protocol), request()));
    expect(result.usage.cachedInputTokens).toBe(80);
    expect(result.usage.outputTokens).toBe(2);
  });

  it('puts an image in user content on the wire when the endpoint has vision', async () => {
    const content: ModelRequest['messages'][number] = {
      role: 'user',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image', data: PNG, mediaType: 'image/png' },
      ],
    };
    await collect(streamEndpoint(llm.endpoint(protocol), request({ messages: [content] })));
    const body = JSON.stringify(llm.lastRequest!.body);
    const expected = {
      openai: `"url":"data:image/png;base64,${PNG}"`,
      anthropic: `"source":{"type":"base64","media_type":"image/png","data":"${PNG}"}`,
      gemini: `"inlineData":{"mimeType":"image/png","data":"${PNG}"}`,
    }[protocol];
    expect(body).toContain(expected);
    expect(llm.lastRequest!.lastUserText).toContain('What is this?');
  });

  it('replaces images with a note when the endpoint has no vision', async () => {
    const content: ModelRequest['messages'][number] = {
      role: 'user',
      content: [{ type: 'image', data: PNG, mediaType: 'image/png' }],
    };
    await collect(
      streamEndpoint(llm.endpoint(protocol, { vision: false }), request({ messages: [content] })),
    );
    const body = JSON.stringify(llm.lastRequest!.body);
    expect(body).not.toContain(PNG);
    expect(body).toContain('image omitted');
  });

  it('replays assistant tool calls and tool results (ok and error)', async () => {
    const messages: ModelRequest['messages'] = [
      { role: 'user', content: 'read a.md and b.md' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'call_a', name: 'read_file', arguments: '{"path":"a.md"}' },
          { id: 'call_b', name: 'read_file', arguments: '{"path":"b.md"}' },
        ],
      },
      { role: 'tool', toolCallId: 'call_a', toolName: 'read_file', content: 'alpha body' },
      { role: 'tool', toolCallId: 'call_b', toolName: 'read_file', content: 'no such file', isError: true },
    ];
    await collect(streamEndpoint(llm.endpoint(protocol), request({ messages, tools: TOOLS })));
    const body = JSON.stringify(llm.lastRequest!.body);
    expect(body).toContain('alpha body');
    expect(body).toContain('no such file');
    if (protocol === 'openai') {
      expect(body).toContain('"tool_call_id":"call_a"');
      expect(body).toContain('"arguments":"{\\"path\\":\\"b.md\\"}"');
    } else if (protocol === 'anthropic') {
      expect(body).toContain('"type":"tool_use","id":"call_a","name":"read_file","input":{"path":"a.md"}');
      expect(body).toMatch(/"tool_use_id":"call_b"[^}]*"is_error":true/);
    } else {
      expect(body).toMatch(/"functionCall":\{("id":"call_a",)?"name":"read_file","args":\{"path":"a.md"\}\}/);
      const turns = llm.lastRequest!.body.contents as Array<{ parts: Array<Record<string, unknown>> }>;
      expect(turns.at(-1)!.parts.map((part) => Object.keys(part)[0])).toEqual([
        'functionResponse',
        'functionResponse',
      ]);
    }
  });

  it('throws a ProviderError with the status and Retry-After on 429', async () => {
    llm.script({ status: 429, retryAfter: '7', errorMessage: 'Slow down' });
    const error = await collect(streamEndpoint(llm.endpoint(protocol), request())).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 429, retryAfterMs: 7000, endpoint: `fake-${protocol}` });
    expect((error as ProviderError).isRateLimit).toBe(true);
    expect((error as ProviderError).bodyExcerpt).toContain('Slow down');
  });

  it('ends with error naming the content filter, keeping the text before it', async () => {
    const raw = { openai: 'content_filter', anthropic: 'refusal', gemini: 'SAFETY' }[protocol];
    llm.script({ text: 'Here is how you', finishReason: raw });
    const { result } = await collect(streamEndpoint(llm.endpoint(protocol), request()));
    expect(result).toMatchObject({ text: 'Here is how you', toolCalls: [], stopReason: 'error' });
    expect(result.errorMessage).toContain(`content filter stopped the reply (finish reason "${raw}"`);
    expect(result.errorMessage).toContain('Rephrase the request or use another model.');
    if (protocol === 'gemini') expect(result.errorMessage).toContain('flagged: dangerous content');
  });

  it('throws a ProviderError for an error event inside the stream, after the deltas before it', async () => {
    const message = 'The model is overloaded. Please try again later.';
    llm.script({
      text: 'a reply the provider gives up on halfway',
      streamError: { afterChunks: 2, status: 503, message },
    });
    const seen: ModelEvent[] = [];
    const error = await (async () => {
      for await (const event of streamEndpoint(llm.endpoint(protocol), request())) seen.push(event);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toContain(message);
    expect((error as ProviderError).isRateLimit).toBe(true);
    expect(seen.map((event) => event.type)).toEqual(['text-delta', 'text-delta']);
    if (protocol === 'gemini') expect(error).toMatchObject({ status: 503 });
  });

  it('throws a NetworkError when the connection drops mid-stream, after the first deltas', async () => {
    llm.script({ text: 'a long answer that will never be finished by the server', dropAfterChunks: 3 });
    const seen: ModelEvent[] = [];
    const error = await (async () => {
      for await (const event of streamEndpoint(llm.endpoint(protocol), request())) seen.push(event);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).reason).toBe('reset');
    expect(seen.filter((event) => event.type === 'text-delta')).toHaveLength(3);
    expect(seen.some((event) => event.type === 'done')).toBe(false);
  });

  it('turns endpoint.timeoutMs into a NetworkError timeout', async () => {
    llm.script({ hang: true });
    const endpoint = llm.endpoint(protocol, { timeoutMs: 150 });
    const error = await collect(streamEndpoint(endpoint, request())).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).reason).toBe('timeout');
    expect((error as NetworkError).message).toContain('timeout_ms');
  });

  it("throws the signal's reason when the caller aborts mid-stream", async () => {
    llm.script({
      text: 'one two three four five six seven eight nine ten eleven twelve',
      chunkDelayMs: 10_000,
    });
    const controller = new AbortController();
    const seen: string[] = [];
    const error = await (async () => {
      for await (const event of streamEndpoint(llm.endpoint(protocol), request(), controller.signal)) {
        if (event.type === 'text-delta') {
          seen.push(event.text);
          controller.abort();
        }
      }
    })().catch((e: unknown) => e);
    expect(controller.signal.aborted).toBe(true);
    expect(error).toBe(controller.signal.reason);
    expect(seen).toHaveLength(1);
  });
});

describe('streamEndpoint protocol details', () => {
  it('anthropic: marks the last system block flagged cache with cache_control', async () => {
    const system = [
      { text: 'Stable persona.', cache: true },
      { text: 'Stable tools guide.', cache: true },
      { text: 'Volatile: today is Monday.' },
    ];
    await collect(streamEndpoint(llm.endpoint('anthropic'), request({ system })));
    expect(llm.lastRequest!.body.system).toEqual([
      { type: 'text', text: 'Stable persona.' },
      { type: 'text', text: 'Stable tools guide.', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'Volatile: today is Monday.' },
    ]);
  });

  it('openai: joins system blocks into one message and asks for streamed usage', async () => {
    const system = [{ text: 'Block one.', cache: true }, { text: 'Block two.' }];
    await collect(streamEndpoint(llm.endpoint('openai'), request({ system, temperature: 0.2 })));
    const body = llm.lastRequest!.body;
    expect(body.messages[0]).toEqual({ role: 'system', content: 'Block one.\n\nBlock two.' });
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.temperature).toBe(0.2);
    expect(llm.lastRequest!.headers.authorization).toBe('Bearer fake-key');
  });

  it('sends the api key in each protocol’s header and custom headers too', async () => {
    await collect(streamEndpoint(llm.endpoint('anthropic', { headers: { 'x-extra': 'yes' } }), request()));
    expect(llm.lastRequest!.headers['x-api-key']).toBe('fake-key');
    expect(llm.lastRequest!.headers['x-extra']).toBe('yes');
    await collect(streamEndpoint(llm.endpoint('gemini'), request()));
    expect(llm.lastRequest!.headers['x-goog-api-key']).toBe('fake-key');
    expect(llm.lastRequest!.path).toBe('/v1beta/models/fake-model:streamGenerateContent?alt=sse');
  });

  it('omits the Authorization header for keyless local servers', async () => {
    await collect(streamEndpoint(llm.endpoint('openai', { apiKey: undefined }), request()));
    expect(llm.lastRequest!.headers.authorization).toBeUndefined();
  });

  it('clamps maxOutputTokens to the endpoint limit', async () => {
    await collect(
      streamEndpoint(llm.endpoint('openai', { maxOutputTokens: 50 }), request({ maxOutputTokens: 4000 })),
    );
    expect(llm.lastRequest!.body.max_tokens).toBe(50);
  });
});

describe('streamEndpoint over gemini: what the Gemini API does', () => {
  it('ends a blocked prompt with an error naming the block reason, not a crash', async () => {
    llm.script({ blockReason: 'PROHIBITED_CONTENT', usage: { input: 40, output: 0 } });
    const { events, result } = await collect(streamEndpoint(llm.endpoint('gemini'), request()));
    expect(events.map((event) => event.type)).toEqual(['done']);
    expect(result).toMatchObject({
      text: '',
      toolCalls: [],
      stopReason: 'error',
      usage: { inputTokens: 40, outputTokens: 0 },
    });
    expect(result.errorMessage).toBe(
      'The provider blocked the request before answering (block reason "PROHIBITED_CONTENT"; flagged: dangerous content). Rephrase the request or use another model.',
    );
  });

  it("names Gemini's other stop reasons", async () => {
    llm.script(
      { text: 'As the song goes', finishReason: 'RECITATION' },
      { finishReason: 'MALFORMED_FUNCTION_CALL' },
    );
    const recitation = await collect(streamEndpoint(llm.endpoint('gemini'), request()));
    expect(recitation.result).toMatchObject({ text: 'As the song goes', stopReason: 'error' });
    expect(recitation.result.errorMessage).toContain('(finish reason "RECITATION")');
    const malformed = await collect(streamEndpoint(llm.endpoint('gemini'), request({ tools: TOOLS })));
    expect(malformed.result.stopReason).toBe('error');
    expect(malformed.result.errorMessage).toContain('tool call the provider could not read');
  });

  it('counts thinking tokens as output, as Gemini bills them', async () => {
    llm.script({ text: 'ok', usage: { input: 50, output: 10, thoughts: 120 } });
    const { result } = await collect(streamEndpoint(llm.endpoint('gemini'), request()));
    expect(result.usage).toEqual({ inputTokens: 50, outputTokens: 130 });
  });

  it('reads the wait of a 429 from RetryInfo, as Gemini sends no Retry-After', async () => {
    llm.script({ status: 429, retryDelay: '7s', errorMessage: 'You exceeded your current quota.' });
    const error = await thrown(streamEndpoint(llm.endpoint('gemini'), request()));
    expect(error).toMatchObject({ status: 429, retryAfterMs: 7_000, retryAfter: undefined });
    expect(failureAction(error)).toBe('cooldown');
    expect(error.message).toBe(
      'Endpoint "fake-gemini" (model "fake-model") is rate-limited or overloaded (HTTP 429): RESOURCE_EXHAUSTED: You exceeded your current quota. The provider asks to wait 7 s.',
    );
  });

  it('cools down on 503 UNAVAILABLE "overloaded" and retries a plain 503', async () => {
    llm.script(
      { status: 503, errorMessage: 'The model is overloaded. Please try again later.' },
      { status: 503, errorMessage: 'The service is currently unavailable.' },
    );
    const overloaded = await thrown(streamEndpoint(llm.endpoint('gemini'), request()));
    expect(failureAction(overloaded)).toBe('cooldown');
    expect(overloaded.message).toContain('UNAVAILABLE: The model is overloaded.');
    const unavailable = await thrown(streamEndpoint(llm.endpoint('gemini'), request()));
    expect(failureAction(unavailable)).toBe('retry');
  });

  it('says to check the key when Gemini refuses it (400 API_KEY_INVALID, or 403 without one)', async () => {
    const guarded = await startFakeLlmServer({ apiKey: 'the-right-key' });
    try {
      const wrong = await thrown(
        streamEndpoint(guarded.endpoint('gemini', { apiKey: 'AIza-wrong-key-77' }), request()),
      );
      expect(wrong).toMatchObject({ status: 400 });
      expect(failureAction(wrong)).toBe('fatal');
      expect(wrong.message).toContain(
        'rejected the API key (HTTP 400): INVALID_ARGUMENT: API key not valid.',
      );
      expect(wrong.message).toContain('Check the api_key of endpoint "fake-gemini"');
      expect(wrong.message).not.toContain('AIza-wrong-key-77');
      const none = await thrown(streamEndpoint(guarded.endpoint('gemini', { apiKey: undefined }), request()));
      expect(none).toMatchObject({ status: 403 });
      expect(none.message).toContain('rejected the API key (HTTP 403)');
      expect(guarded.requests[0]?.headers['x-goog-api-key']).toBe('AIza-wrong-key-77');
    } finally {
      await guarded.close();
    }
  });

  it.each(['fake-model', 'gemini-3-flash-preview'])(
    'round-trips parallel calls: functionResponse parts with the ids and names of the calls (%s)',
    async (model) => {
      const endpoint = llm.endpoint('gemini', { model });
      llm.script(
        {
          toolCalls: [
            { name: 'read_file', arguments: { path: 'a.md' } },
            { name: 'list_dir', arguments: { path: 'docs' } },
          ],
        },
        { text: 'a.md says alpha; docs is empty.' },
      );
      const first = await collect(streamEndpoint(endpoint, request({ tools: TOOLS })));
      const [read, list] = first.result.toolCalls;
      const messages: ModelRequest['messages'] = [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: '', toolCalls: first.result.toolCalls },
        { role: 'tool', toolCallId: read!.id, toolName: 'read_file', content: 'alpha' },
        { role: 'tool', toolCallId: list!.id, toolName: 'list_dir', content: 'ENOENT: docs', isError: true },
      ];
      const second = await collect(streamEndpoint(endpoint, request({ messages, tools: TOOLS })));
      expect(second.result).toMatchObject({ text: 'a.md says alpha; docs is empty.', stopReason: 'stop' });
      const contents = llm.lastRequest!.body.contents as Array<{
        role: string;
        parts: Array<Record<string, unknown>>;
      }>;
      expect(contents.map((content) => content.role)).toEqual(['user', 'model', 'user']);
      expect(contents[1]!.parts.map((part) => part.functionCall)).toEqual([
        { id: read!.id, name: 'read_file', args: { path: 'a.md' } },
        { id: list!.id, name: 'list_dir', args: { path: 'docs' } },
      ]);
      // Gemini 3 refuses a replayed call without a thought signature (the fake checks it like the API).
      if (model.startsWith('gemini-3')) expect(contents[1]!.parts[0]!.thoughtSignature).toBeTruthy();
      expect(contents[2]!.parts).toEqual([
        {
          functionResponse: {
            id: read!.id,
            name: 'read_file',
            response: { name: 'read_file', content: 'alpha' },
          },
        },
        {
          functionResponse: {
            id: list!.id,
            name: 'list_dir',
            response: { name: 'list_dir', content: 'ENOENT: docs' },
          },
        },
      ]);
    },
  );
});
