import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EndpointConfig } from '../../src/llm/endpoint.js';
import { EndpointPool, type EndpointPoolOptions } from '../../src/llm/endpoint-pool.js';
import type { ModelEvent, ModelRequest, ModelResult } from '../../src/llm/types.js';
import {
  type FakeLlmServer,
  type FakeProtocol,
  type FakeStep,
  startFakeLlmServer,
} from '../fakes/fake-llm-server.js';

const T0 = Date.UTC(2030, 0, 15, 9, 0, 0);
const REQUEST: ModelRequest = {
  system: [{ text: 'You are Wren.' }],
  messages: [{ role: 'user', content: 'hi' }],
};

let llm: FakeLlmServer;
beforeAll(async () => {
  llm = await startFakeLlmServer();
});
afterAll(() => llm.close());
beforeEach(() => llm.reset());

const PROTOCOLS = ['openai', 'anthropic', 'gemini'] as const;

/** An endpoint on the fake server (OpenAI unless `overrides.protocol`); its model name tells it apart. */
function endpoint(name: string, overrides: Partial<EndpointConfig> = {}): EndpointConfig {
  const protocol = overrides.protocol ?? 'openai';
  return llm.endpoint(protocol, { name, model: `model-${name}`, timeoutMs: 5_000, ...overrides });
}

/** A 429 asking for `seconds` of rest: Gemini says it in `RetryInfo`, the others in Retry-After. */
function rateLimited(protocol: FakeProtocol, seconds: number, model: string): FakeStep {
  const wait = protocol === 'gemini' ? { retryDelay: `${seconds}s` } : { retryAfter: String(seconds) };
  return { status: 429, ...wait, match: { model: `model-${model}` } };
}

/** A pool with a settable clock and recorded backoff sleeps. */
function pool(endpoints: EndpointConfig[], options: Partial<EndpointPoolOptions> = {}) {
  const clock = { now: T0 };
  const sleeps: number[] = [];
  const model = new EndpointPool({
    endpoints,
    clock: () => clock.now,
    random: () => 0.5,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...options,
  });
  return { model, clock, sleeps };
}

async function run(model: EndpointPool, request: ModelRequest = REQUEST, signal?: AbortSignal) {
  const events: ModelEvent[] = [];
  for await (const event of model.stream(request, signal)) events.push(event);
  expect(events.filter((event) => event.type === 'done')).toHaveLength(1);
  const done = events.at(-1) as Extract<ModelEvent, { type: 'done' }>;
  return { events, result: done.result };
}

const used = () => llm.requests.map((request) => request.model.replace('model-', ''));
const modelIs = (name: string) => ({ model: `model-${name}` });

describe('EndpointPool routing', () => {
  it('tries the lowest priority first and names the endpoint in the result', async () => {
    const { model } = pool([endpoint('a', { priority: 2 }), endpoint('b', { priority: 1 })]);
    const { result } = await run(model);
    expect(result).toMatchObject({ text: 'ok', stopReason: 'stop', endpoint: 'b' });
    expect(used()).toEqual(['b']);
  });

  it('round-robins among endpoints of equal priority', async () => {
    const { model } = pool([endpoint('a'), endpoint('b'), endpoint('c', { priority: 5 })]);
    for (let i = 0; i < 4; i++) await run(model);
    expect(used()).toEqual(['a', 'b', 'a', 'b']);
  });

  it('filters by tag and falls back to all enabled endpoints when no endpoint has the tag', async () => {
    const { model } = pool([
      endpoint('big', { tags: ['default'] }),
      endpoint('small', { tags: ['small'], priority: 3 }),
      endpoint('off', { tags: ['small'], enabled: false }),
    ]);
    expect((await run(model, { ...REQUEST, tag: 'small' })).result.endpoint).toBe('small');
    expect((await run(model)).result.endpoint).toBe('big');
    expect((await run(model, { ...REQUEST, tag: 'vision' })).result.endpoint).toBe('big');
    expect(model.limits('small')).toEqual({ contextWindow: 32_000, maxOutputTokens: 1_024 });
  });

  it('reports limits of the first candidate and a status without secrets', () => {
    const { model } = pool([
      endpoint('a', { priority: 1, contextWindow: 8_000, maxOutputTokens: 512 }),
      endpoint('b', {
        priority: 0,
        contextWindow: 200_000,
        maxOutputTokens: 4_096,
        tags: ['default', 'smart'],
      }),
    ]);
    expect(model.limits()).toEqual({ contextWindow: 200_000, maxOutputTokens: 4_096 });
    expect(model.status()[1]).toEqual({
      name: 'b',
      protocol: 'openai',
      model: 'model-b',
      tags: ['default', 'smart'],
      priority: 0,
      enabled: true,
      coolingUntil: undefined,
    });
    expect(JSON.stringify(model.status())).not.toContain('fake-key');
  });

  it('ends with an actionable error when no endpoint is configured or enabled', async () => {
    const { result } = await run(pool([]).model);
    expect(result.stopReason).toBe('error');
    expect(result.errorMessage).toContain('config.yaml');
    const disabled = await run(pool([endpoint('a', { enabled: false })]).model);
    expect(disabled.result.errorMessage).toContain('disabled');
  });
});

describe('EndpointPool rate limits over HTTP', () => {
  it('reads Retry-After as an HTTP date against the injected clock', async () => {
    const { model } = pool([endpoint('a'), endpoint('b', { priority: 1 })]);
    llm.script({ status: 429, retryAfter: new Date(T0 + 30_000).toUTCString(), match: modelIs('a') });
    await run(model);
    expect(model.status()[0]!.coolingUntil).toBe(T0 + 30_000);
  });
});

describe.each(PROTOCOLS)('EndpointPool rate limits over %s', (protocol) => {
  const at = (name: string, overrides: Partial<EndpointConfig> = {}) =>
    endpoint(name, { protocol, ...overrides });

  it("fails over on 429 and skips the endpoint until the provider's wait has passed", async () => {
    const { model, clock, sleeps } = pool([at('a'), at('b', { priority: 1 })]);
    llm.script(rateLimited(protocol, 7, 'a'));
    expect((await run(model)).result.endpoint).toBe('b');
    expect(model.status()[0]!.coolingUntil).toBe(T0 + 7_000);
    expect(sleeps).toEqual([]);

    clock.now = T0 + 6_999;
    expect((await run(model)).result.endpoint).toBe('b');
    clock.now = T0 + 7_000;
    expect((await run(model)).result.endpoint).toBe('a');
    expect(used()).toEqual(['a', 'b', 'b', 'a']);
  });

  it('cools down for 60 s when there is no Retry-After, also on 529 and "overloaded"', async () => {
    const { model } = pool([at('a'), at('b', { priority: 1 }), at('c', { priority: 2 })]);
    llm.script(
      { status: 429, match: modelIs('a') },
      { status: 529, match: modelIs('b') },
      { status: 200, text: 'fine', match: modelIs('c') },
    );
    const { result } = await run(model);
    expect(result).toMatchObject({ text: 'fine', endpoint: 'c' });
    expect(model.status().map((entry) => entry.coolingUntil)).toEqual([T0 + 60_000, T0 + 60_000, undefined]);

    const overloaded = pool([at('x'), at('y', { priority: 1 })]);
    llm.script({ status: 503, errorMessage: 'Model is overloaded, try later', match: modelIs('x') });
    expect((await run(overloaded.model)).result.endpoint).toBe('y');
    expect(overloaded.sleeps).toEqual([]);
    expect(overloaded.model.status()[0]!.coolingUntil).toBe(T0 + 60_000);
  });

  it('ends at once, naming the time, when every candidate is cooling down', async () => {
    const { model } = pool([at('a'), at('b', { priority: 1 })]);
    llm.script(rateLimited(protocol, 12, 'a'), rateLimited(protocol, 7, 'b'));
    const first = await run(model);
    expect(first.result.stopReason).toBe('error');
    const expectedClock = new Date(T0 + 7_000).toTimeString().slice(0, 8);
    expect(first.result.errorMessage).toContain(`"b", is available again at ${expectedClock} (in 7 s)`);

    const before = llm.requests.length;
    const second = await run(model);
    expect(llm.requests.length).toBe(before);
    expect(second.result.stopReason).toBe('error');
    expect(second.result.errorMessage).toContain('in 7 s');
  });

  it('keeps cool-downs across update() for endpoints whose name survives', async () => {
    const { model } = pool([at('a'), at('b', { priority: 1 })]);
    llm.script(rateLimited(protocol, 30, 'a'));
    await run(model);
    model.update([at('a', { contextWindow: 64_000 }), at('b', { priority: 1 })]);
    expect(model.status()[0]!.coolingUntil).toBe(T0 + 30_000);
    expect((await run(model)).result.endpoint).toBe('b');

    model.update([at('b')]);
    model.update([at('a'), at('b', { priority: 1 })]);
    expect(model.status()[0]!.coolingUntil).toBeUndefined();
  });
});

describe.each(PROTOCOLS)('EndpointPool retries over %s', (protocol) => {
  const at = (name: string, overrides: Partial<EndpointConfig> = {}) =>
    endpoint(name, { protocol, ...overrides });

  it('retries 5xx with exponential backoff and full jitter, then succeeds', async () => {
    const { model, sleeps } = pool([at('a'), at('b', { priority: 1 })]);
    llm.script({ status: 503, match: modelIs('a') }, { status: 502, match: modelIs('a') });
    const { result } = await run(model);
    expect(result).toMatchObject({ text: 'ok', stopReason: 'stop', endpoint: 'a' });
    expect(sleeps).toEqual([250, 500]); // random 0.5 × min(8 s, 500 ms × 2^n)
    expect(used()).toEqual(['a', 'a', 'a']);
  });

  it('moves on after the attempts are used up and caps the backoff', async () => {
    const endpoints = [at('a'), at('b', { priority: 1 })];
    const { model, sleeps } = pool(endpoints, { retry: { attempts: 6 }, random: () => 0.999 });
    for (let i = 0; i < 6; i++) llm.script({ status: 500, match: modelIs('a') });
    const { result } = await run(model);
    expect(result.endpoint).toBe('b');
    expect(sleeps).toEqual([499, 999, 1998, 3996, 7992]);
    expect(used()).toEqual(['a', 'a', 'a', 'a', 'a', 'a', 'b']);
  });

  it('retries connection errors and reports the last one when every endpoint fails', async () => {
    const closed = await startFakeLlmServer();
    await closed.close();
    const dead = at('dead', { baseUrl: closed.baseUrls[protocol] });
    const { model, sleeps } = pool([dead]);
    const { result } = await run(model);
    expect(result.stopReason).toBe('error');
    expect(result.errorMessage).toContain('connection refused');
    expect(result.endpoint).toBe('dead');
    expect(sleeps).toHaveLength(2);
  });

  it.each([
    [400, 'refused the request (HTTP 400)'],
    [401, 'Check the api_key of endpoint "a"'],
    [404, 'Check the model name and base_url'],
  ])('does not retry or fail over on %i and says what to do', async (status, advice) => {
    const { model, sleeps } = pool([at('a'), at('b', { priority: 1 })]);
    llm.script({ status, errorMessage: 'details from the provider', match: modelIs('a') });
    const { result } = await run(model);
    expect(result).toMatchObject({ stopReason: 'error', endpoint: 'a' });
    expect(result.errorMessage).toContain(advice);
    expect(result.errorMessage).toContain('details from the provider');
    expect(sleeps).toEqual([]);
    expect(used()).toEqual(['a']);
  });

  it('does not retry after the first delta: the stream ends with error and keeps the partial text', async () => {
    const { model, sleeps } = pool([at('a'), at('b', { priority: 1 })]);
    llm.script({
      text: 'partial answer that will be cut off somewhere',
      dropAfterChunks: 2,
      match: modelIs('a'),
    });
    const { events, result } = await run(model);
    const text = events.flatMap((event) => (event.type === 'text-delta' ? [event.text] : [])).join('');
    expect(text.length).toBeGreaterThan(0);
    expect(result).toMatchObject({ stopReason: 'error', endpoint: 'a', text });
    expect(result.errorMessage).toContain('dropped');
    expect(sleeps).toEqual([]);
    expect(used()).toEqual(['a']);
  });

  it('fails over when the stream reports an overload before any content', async () => {
    const { model, sleeps } = pool([at('a'), at('b', { priority: 1 })]);
    llm.script({
      text: 'never sent',
      streamError: {
        afterChunks: 0,
        status: 503,
        message: 'The model is overloaded. Please try again later.',
      },
      match: modelIs('a'),
    });
    const { result } = await run(model);
    expect(result).toMatchObject({ text: 'ok', stopReason: 'stop', endpoint: 'b' });
    expect(model.status()[0]!.coolingUntil).toBe(T0 + 60_000);
    expect(sleeps).toEqual([]);
  });

  it('ends with error, keeping the partial text, on an error event after the first delta', async () => {
    const { model, sleeps } = pool([at('a'), at('b', { priority: 1 })]);
    llm.script({
      text: 'partial answer that the provider gives up on',
      streamError: { afterChunks: 2, status: 500, message: 'Internal error encountered.' },
      match: modelIs('a'),
    });
    const { events, result } = await run(model);
    const text = events.flatMap((event) => (event.type === 'text-delta' ? [event.text] : [])).join('');
    expect(text.length).toBeGreaterThan(0);
    expect(result).toMatchObject({ stopReason: 'error', endpoint: 'a', text });
    expect(result.errorMessage).toContain('Internal error encountered.');
    expect(sleeps).toEqual([]);
    expect(used()).toEqual(['a']);
  });

  it('refuses a wrong key at once, says to check api_key, and never shows the key', async () => {
    const guarded = await startFakeLlmServer({ apiKey: 'the-right-key' });
    try {
      const on = (name: string, apiKey: string, priority: number) =>
        guarded.endpoint(protocol, { name, apiKey, priority, model: `model-${name}` });
      const { model, sleeps } = pool([on('a', 'sk-wrong-key-0451', 0), on('b', 'the-right-key', 1)]);
      const { result } = await run(model);
      expect(result).toMatchObject({ stopReason: 'error', endpoint: 'a' });
      expect(result.errorMessage).toContain('rejected the API key');
      expect(result.errorMessage).toContain('Check the api_key of endpoint "a"');
      expect(result.errorMessage).not.toContain('sk-wrong-key-0451');
      expect(guarded.requests.map((request) => request.model)).toEqual(['model-a']);
      expect(sleeps).toEqual([]);
    } finally {
      await guarded.close();
    }
  });
});

describe('EndpointPool aborts', () => {
  it('ends with aborted promptly when the caller aborts mid-stream', async () => {
    const { model } = pool([endpoint('a'), endpoint('b', { priority: 1 })]);
    llm.script({ text: 'one two three four five six seven eight nine ten', chunkDelayMs: 60_000 });
    const controller = new AbortController();
    const events: ModelEvent[] = [];
    for await (const event of model.stream(REQUEST, controller.signal)) {
      events.push(event);
      if (event.type === 'text-delta') controller.abort();
    }
    const result = (events.at(-1) as { result: ModelResult }).result;
    expect(events.map((event) => event.type)).toEqual(['text-delta', 'done']);
    expect(result).toMatchObject({ stopReason: 'aborted', endpoint: 'a' });
    expect(result.text.length).toBeGreaterThan(0);
    expect(used()).toEqual(['a']);
  });

  it('ends with aborted during a backoff sleep, without trying further', async () => {
    const controller = new AbortController();
    const { model } = pool([endpoint('a'), endpoint('b', { priority: 1 })], {
      sleep: (_ms, signal) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
          controller.abort();
        }),
    });
    llm.script({ status: 503, match: modelIs('a') });
    const { result } = await run(model, REQUEST, controller.signal);
    expect(result.stopReason).toBe('aborted');
    expect(used()).toEqual(['a']);
  });

  it('ends with aborted when the signal is already aborted, sending nothing', async () => {
    const { model } = pool([endpoint('a')]);
    const { result } = await run(model, REQUEST, AbortSignal.abort());
    expect(result.stopReason).toBe('aborted');
    expect(llm.requests).toHaveLength(0);
  });

  it('aborts promptly even when a substitute stream ignores its signal', async () => {
    const controller = new AbortController();
    const stuck: EndpointPoolOptions['streamEndpoint'] = async function* () {
      yield { type: 'text-delta', text: 'hel' };
      await new Promise(() => {}); // never settles
    };
    const { model } = pool([endpoint('a')], { streamEndpoint: stuck });
    const events: ModelEvent[] = [];
    for await (const event of model.stream(REQUEST, controller.signal)) {
      events.push(event);
      if (event.type === 'text-delta') controller.abort();
    }
    expect(events.at(-1)).toMatchObject({ type: 'done', result: { stopReason: 'aborted', text: 'hel' } });
  });
});

describe('EndpointPool secrets', () => {
  it('never puts the api key in an errorMessage', async () => {
    const KEY = 'sk-wren-TEST-KEY-5f3a9c1e7b2d';
    const guarded = await startFakeLlmServer({ apiKey: 'the-right-key' });
    const closed = await startFakeLlmServer();
    await closed.close();
    try {
      const keyed = (name: string, overrides: Partial<EndpointConfig> = {}) =>
        guarded.endpoint('openai', { name, apiKey: KEY, timeoutMs: 200, ...overrides });
      const cases: Array<{ endpoint: EndpointConfig; script?: Parameters<FakeLlmServer['script']> }> = [
        { endpoint: keyed('wrong-key') },
        { endpoint: keyed('anthropic-wrong-key', { protocol: 'anthropic' }) },
        { endpoint: keyed('gemini-wrong-key', { protocol: 'gemini', baseUrl: guarded.baseUrls.gemini }) },
        { endpoint: keyed('refused', { baseUrl: `http://${KEY}:x@127.0.0.1:${closed.port}/v1` }) },
        {
          endpoint: keyed('timeout', { apiKey: 'the-right-key' }),
          script: [{ hang: true }, { hang: true }, { hang: true }],
        },
        {
          endpoint: keyed('echo', { apiKey: 'the-right-key' }),
          script: [{ status: 400, errorMessage: 'bad key the-right-key in request' }],
        },
      ];
      const messages: string[] = [];
      for (const { endpoint: target, script } of cases) {
        if (script) guarded.script(...script);
        const { result } = await run(pool([target]).model);
        expect(result.stopReason).toBe('error');
        messages.push(result.errorMessage ?? '');
      }
      expect(guarded.requests.some((request) => request.apiKey === KEY)).toBe(true);
      expect(guarded.requests.some((request) => request.body === undefined)).toBe(false);
      for (const message of messages) {
        expect(message).not.toContain(KEY);
        expect(message).not.toContain('the-right-key');
        expect(message.length).toBeGreaterThan(20);
      }
      expect(messages[0]).toContain('[redacted]');
    } finally {
      await guarded.close();
    }
  });
});

describe('EndpointPool over gemini: safety', () => {
  it('ends a blocked prompt with the reason, without retry or fail-over', async () => {
    const { model, sleeps } = pool([
      endpoint('a', { protocol: 'gemini' }),
      endpoint('b', { protocol: 'gemini', priority: 1 }),
    ]);
    llm.script({ blockReason: 'SAFETY', match: modelIs('a') });
    const { events, result } = await run(model);
    expect(events.map((event) => event.type)).toEqual(['done']);
    expect(result).toMatchObject({ text: '', stopReason: 'error', endpoint: 'a' });
    expect(result.errorMessage).toContain('blocked the request before answering (block reason "SAFETY"');
    expect(model.status().map((entry) => entry.coolingUntil)).toEqual([undefined, undefined]);
    expect(model.health()['a']?.lastError).toBe(result.errorMessage);
    expect(sleeps).toEqual([]);
    expect(used()).toEqual(['a']);
  });
});
