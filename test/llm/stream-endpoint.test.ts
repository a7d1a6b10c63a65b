import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NetworkError, ProviderError } from '../../src/llm/provider-error.js';
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
