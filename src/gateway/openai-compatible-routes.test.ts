import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { gatedGateway, TEST_TOKEN as TOKEN } from '../../test/support/gated-gateway.js';
import { gatedRuntime, recordingTool, until } from '../../test/support/gated-runtime.js';
import { ScriptedModel } from '../../test/support/scripted-model.js';
import type { ChatMessage } from '../llm/types.js';
import type { OpenAiApprovalMode } from './openai-turn.js';
import { serveGateway } from './serve-gateway.js';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const closers: Array<() => Promise<void>> = [];
// The runtime stops first (ending any turn still waiting), then the server.
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/**
 * The gateway served on 127.0.0.1 over a runtime with the real gate (SQLite) and a scripted model, and the
 * official `openai` client pointed at it: `lookup` runs without asking, `send_email` needs approval.
 */
async function serve(options: { approvals?: OpenAiApprovalMode } = {}) {
  const model = new ScriptedModel();
  const lookup = recordingTool('lookup', 'safe', { answer: () => ({ content: 'the answer is 42' }) });
  const email = recordingTool('send_email', 'sensitive');
  const setup = gatedRuntime({ model, tools: [lookup.tool, email.tool] });
  closers.push(setup.close);
  const webRoot = mkdtempSync(join(tmpdir(), 'wren-web-'));
  writeFileSync(join(webRoot, 'index.html'), '<!doctype html><title>app</title>');
  const { app } = gatedGateway(setup, {
    webRoot,
    ...(options.approvals ? { openAiApprovals: () => options.approvals! } : {}),
  });
  const running = await serveGateway(app, '127.0.0.1', 0);
  closers.push(() => running.close());
  const url = `http://127.0.0.1:${running.port}`;
  const client = (extra: { apiKey?: string; defaultHeaders?: Record<string, string> } = {}) =>
    new OpenAI({ apiKey: TOKEN, baseURL: `${url}/v1`, maxRetries: 0, ...extra });
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  return { ...setup, model, lookup, email, url, openai: client(), client, post };
}

const ask = (content: OpenAI.Chat.ChatCompletionUserMessageParam['content']) => ({
  model: 'wren',
  messages: [{ role: 'user' as const, content }],
});

/** The text of the newest user message a model request carried (the runtime's note comes first). */
function lastUserText(message: ChatMessage | undefined): string {
  if (message?.role !== 'user') return '';
  return typeof message.content === 'string'
    ? message.content
    : message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

async function errorOf(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(OpenAI.APIError);
    return error as InstanceType<typeof OpenAI.APIError>;
  }
  throw new Error('expected the call to fail');
}

describe('OpenAI-compatible endpoint', () => {
  it('lists wren as its one model', async () => {
    const { openai } = await serve();
    const models = [];
    for await (const model of openai.models.list()) models.push(model.id);
    expect(models).toEqual(['wren']);
    expect((await openai.models.retrieve('wren')).owned_by).toBe('wren');
    const missing = await errorOf(openai.models.retrieve('gpt-4o'));
    expect(missing.status).toBe(404);
    expect(missing.code).toBe('model_not_found');
  });

  it('answers a chat completion from the newest user message only, with usage', async () => {
    const { openai, model } = await serve();
    model.script({ text: 'Hello from Wren' });
    const { data, response } = await openai.chat.completions
      .create({
        model: 'wren',
        messages: [
          { role: 'system', content: 'You are a pirate.' },
          { role: 'user', content: 'an old question' },
          { role: 'assistant', content: 'an old answer' },
          { role: 'user', content: 'hi there' },
        ],
      })
      .withResponse();
    expect(data.object).toBe('chat.completion');
    expect(data.model).toBe('wren');
    expect(data.id).toMatch(/^chatcmpl-/);
    expect(data.choices).toHaveLength(1);
    expect(data.choices[0]!.message).toMatchObject({ role: 'assistant', content: 'Hello from Wren' });
    expect(data.choices[0]!.finish_reason).toBe('stop');
    expect(data.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
    expect(response.headers.get('x-wren-session')).toBe('openai');
    const request = model.requests[0]!;
    expect(lastUserText(request.messages.at(-1))).toContain('hi there');
    const sent = JSON.stringify(request);
    expect(sent).not.toContain('an old question');
    expect(sent).not.toContain('pirate');
  });

  it('streams role, content deltas, a stop chunk, usage and [DONE]', async () => {
    const { openai, model, post } = await serve();
    model.script({ text: 'Streaming reply here' });
    const stream = await openai.chat.completions.create({
      ...ask('stream please'),
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.model === 'wren')).toBe(
      true,
    );
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('Streaming reply here');
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta.content).length).toBeGreaterThan(1);
    const finish = chunks.at(-2)!;
    expect(finish.choices[0]!.finish_reason).toBe('stop');
    const usage = chunks.at(-1)!;
    expect(usage.choices).toEqual([]);
    expect(usage.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });

    // On the wire: SSE data lines only, ending with [DONE]; no usage asked for, none sent.
    model.script({ text: 'again' });
    const raw = await post({ ...ask('once more'), stream: true });
    expect(raw.headers.get('content-type')).toContain('text/event-stream');
    const body = await raw.text();
    expect(body.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(body).not.toContain('event:');
    expect(body).not.toContain('"usage"');
  });

  it('streams each delta as the model makes it: the first one arrives while the model still holds the rest', async () => {
    const { openai, model } = await serve();
    let release!: () => void;
    model.midAnswer = new Promise((resolve) => {
      release = resolve;
    });
    model.script({ text: 'Streaming reply here' });
    const stream = await openai.chat.completions.create({ ...ask('stream please'), stream: true });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    const reading = (async () => {
      for await (const chunk of stream) chunks.push(chunk);
    })();
    const content = () => chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    try {
      await until(() => content() !== '', 'the first delta, while the model holds the rest of the answer');
      expect(content()).toBe('Stre');
      expect(chunks.some((chunk) => chunk.choices[0]?.finish_reason)).toBe(false);
    } finally {
      release();
    }
    await reading;
    expect(content()).toBe('Streaming reply here');
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop');
  });

  it('runs a tool inside the turn, streamed and not', async () => {
    const { openai, model, lookup } = await serve();
    model.script(
      { text: 'Let me look.', toolCalls: [{ name: 'lookup', arguments: { q: 'meaning' } }] },
      { text: 'It is 42.' },
    );
    const whole = await openai.chat.completions.create(ask('what is the meaning?'));
    expect(whole.choices[0]!.message.content).toBe('It is 42.');
    expect(lookup.calls).toEqual([{ q: 'meaning' }]);
    expect(JSON.stringify(model.requests[1]!.messages)).toContain('the answer is 42');
    expect(whole.usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 10 });

    model.script(
      { text: 'Looking.', toolCalls: [{ name: 'lookup', arguments: { q: 'again' } }] },
      { text: 'Still 42.' },
    );
    const stream = await openai.chat.completions.create({ ...ask('and again?'), stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Looking.\n\nStill 42.');
    expect(lookup.calls).toHaveLength(2);
  });

  it('continues the conversation that `user` or X-Wren-Session names, and keeps others apart', async () => {
    const { openai, model, post, store } = await serve();
    const first = await openai.chat.completions.create({ ...ask('remember apples'), user: 'alice' });
    expect(first.choices[0]!.message.content).toBe('ok');
    await openai.chat.completions.create({ ...ask('what fruit?'), user: 'alice' });
    expect(JSON.stringify(model.requests[1]!.messages)).toContain('remember apples');

    await openai.chat.completions.create({ ...ask('a fresh start'), user: 'bob' });
    expect(JSON.stringify(model.requests[2]!.messages)).not.toContain('remember apples');

    // The header wins over `user`, and may name any session, e.g. one started in the web app.
    const { response } = await openai.chat.completions
      .create({ ...ask('via header'), user: 'bob' }, { headers: { 'X-Wren-Session': 'alice' } })
      .withResponse();
    expect(response.headers.get('x-wren-session')).toBe('alice');
    expect(JSON.stringify(model.requests[3]!.messages)).toContain('what fruit?');
    expect((await store.getSession('alice'))?.id).toBe('alice');
    expect((await store.getSession('bob'))?.id).toBe('bob');

    const bad = await post(ask('hi'), { 'x-wren-session': 'no spaces allowed' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/X-Wren-Session/);
  });

  it('passes image parts with data: URLs to the model as images', async () => {
    const { openai, model } = await serve();
    await openai.chat.completions.create(
      ask([
        { type: 'text', text: 'what is this?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
      ]),
    );
    const user = model.requests[0]!.messages.at(-1)!;
    expect(user.role).toBe('user');
    expect(Array.isArray(user.content) && user.content.slice(1)).toEqual([
      { type: 'image', data: PNG, mediaType: 'image/png' },
    ]);
    expect(lastUserText(user)).toContain('what is this?');

    const linked = await errorOf(
      openai.chat.completions.create(
        ask([{ type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }]),
      ),
    );
    expect(linked.status).toBe(400);
    expect(linked.message).toMatch(/data: URLs/);
    expect(model.requests).toHaveLength(1);
  });

  it('refuses another model with 404 model_not_found in OpenAI’s error shape', async () => {
    const { openai, post, model } = await serve();
    const error = await errorOf(openai.chat.completions.create({ ...ask('hi'), model: 'other' }));
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error.code).toBe('model_not_found');
    expect(error.type).toBe('invalid_request_error');
    expect(error.message).toContain('"wren"');
    const raw = await post({ ...ask('hi'), model: 'gpt-4o', stream: true });
    expect(raw.status).toBe(404);
    expect(await raw.json()).toEqual({
      error: {
        message: expect.stringContaining('gpt-4o'),
        type: 'invalid_request_error',
        param: 'model',
        code: 'model_not_found',
      },
    });
    expect(model.requests).toHaveLength(0);
  });

  it('refuses callers without the token and browser pages of other sites', async () => {
    const { client, url, model } = await serve();
    const wrong = await errorOf(client({ apiKey: 'not-the-token' }).chat.completions.create(ask('hi')));
    expect(wrong).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(wrong.type).toBe('authentication_error');
    const anonymous = await fetch(`${url}/v1/models`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toContain('Bearer');
    expect(((await anonymous.json()) as { error: { code: string; type: string } }).error).toMatchObject({
      code: 'unauthorized',
      type: 'authentication_error',
    });

    const evil = await errorOf(
      client({ defaultHeaders: { origin: 'http://evil.example' } }).chat.completions.create(ask('hi')),
    );
    expect(evil).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(evil.code).toBe('forbidden_origin');
    expect(model.requests).toHaveLength(0);
  });

  it('answers malformed bodies with 400 (413 when too long) naming what is wrong', async () => {
    const { post, model } = await serve();
    const cases: Array<[unknown, number, RegExp]> = [
      ['{not json', 400, /must be JSON/],
      [{ model: 'wren' }, 400, /messages/],
      [{ messages: [{ role: 'user', content: 'hi' }] }, 400, /model is required/],
      [{ model: 'wren', messages: [] }, 400, /at least one message/],
      [{ model: 'wren', messages: 'hi' }, 400, /messages/],
      [
        {
          model: 'wren',
          messages: [
            { role: 'user', content: 'hi' },
            { role: 'assistant', content: 'yo' },
          ],
        },
        400,
        /last message must be the user's/,
      ],
      [ask(''), 400, /empty/],
      [
        ask([{ type: 'input_audio', input_audio: { data: 'x', format: 'wav' } }] as never),
        400,
        /input_audio/,
      ],
      [ask([{ type: 'text', text: 7 }] as never), 400, /text must be a string/],
      [ask([{ type: 'image_url', image_url: { url: 'data:image/bmp;base64,AAAA' } }]), 400, /png, jpeg/],
      [{ ...ask('hi'), user: 'has spaces' }, 400, /user names the conversation/],
      [{ ...ask('hi'), n: 2 }, 400, /one choice/],
      [{ ...ask('hi'), stream: 'yes' }, 400, /stream/],
      [ask('x'.repeat(1_000_001)), 413, /longer than 1,000,000/],
    ];
    for (const [body, status, message] of cases) {
      const response = await post(body);
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(status);
      const error = ((await response.json()) as { error: Record<string, unknown> }).error;
      expect(error['message']).toMatch(message);
      expect(error['type']).toBe('invalid_request_error');
      expect(error).toHaveProperty('code');
    }
    expect(model.requests).toHaveLength(0);
  });

  it('reports a failed model as 502 model_error, streamed or not', async () => {
    const { openai, model } = await serve();
    model.script({ stopReason: 'error' });
    const whole = await errorOf(openai.chat.completions.create(ask('hi')));
    expect(whole.status).toBe(502);
    expect(whole.code).toBe('model_error');
    expect(whole.message).toContain('scripted failure');
    model.script({ stopReason: 'error' });
    const streamed = await errorOf(openai.chat.completions.create({ ...ask('hi'), stream: true }));
    expect(streamed.status).toBe(502);
    expect(streamed.code).toBe('model_error');
  });

  it('cancels the turn when the client goes away', async () => {
    const { openai, model, bus } = await serve();
    model.gate = new Promise(() => {});
    const ended = new Promise<string>((resolve) =>
      bus.subscribeEvents((event) => {
        if (event.type === 'turn-end') resolve(event.stopReason);
      }),
    );
    const controller = new AbortController();
    const reply = openai.chat.completions.create(
      { ...ask('a long one'), stream: true },
      { signal: controller.signal },
    );
    await until(() => model.requests.length === 1, 'the model call');
    controller.abort();
    await expect(reply).rejects.toBeInstanceOf(OpenAI.APIUserAbortError);
    expect(await ended).toBe('aborted');
  });

  it('keeps /v1 away from the web app: unknown paths are OpenAI-shaped 404s', async () => {
    const { url } = await serve();
    const auth = { authorization: `Bearer ${TOKEN}` };
    const unknown = await fetch(`${url}/v1/embeddings`, { headers: auth });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
    expect((await fetch(`${url}/v1`, { headers: auth })).headers.get('content-type')).not.toContain('html');
    // Other paths still get the app.
    expect(await (await fetch(`${url}/chat`)).text()).toContain('<title>app</title>');
  });
});

describe('OpenAI-compatible endpoint: approvals', () => {
  const wantsEmail = { toolCalls: [{ name: 'send_email', arguments: { to: 'ann@example.com' } }] };

  it('deny (the default): the call is refused at once and the reply says it needed approval', async () => {
    const { openai, model, email, gate } = await serve();
    model.script(wantsEmail, { text: 'I could not send it.' });
    const whole = await openai.chat.completions.create(ask('email Ann'));
    const content = whole.choices[0]!.message.content!;
    expect(content).toMatch(
      /^I could not send it\.\n\n\(Wren did not run `send_email`: the call needs your approval/,
    );
    expect(content).toContain('gateway.openai_compat.approvals: wait');
    expect(email.calls).toHaveLength(0);
    expect(gate.approvals.pending()).toHaveLength(0);
    expect(JSON.stringify(model.requests[1]!.messages)).toContain('cannot ask anyone');

    model.script(wantsEmail, { text: 'Not sent.' });
    const stream = await openai.chat.completions.create({ ...ask('email Ann again'), stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toMatch(/^Not sent\.\n\n\(Wren did not run `send_email`/);
    expect(email.calls).toHaveLength(0);

    // A turn without denials says nothing about approvals.
    const plain = await openai.chat.completions.create(ask('hi'));
    expect(plain.choices[0]!.message.content).toBe('ok');
  });

  it('wait: the request holds until the owner answers in the web app (POST /api/approvals/:id)', async () => {
    const { openai, model, email, gate, url } = await serve({ approvals: 'wait' });
    model.script(wantsEmail, { text: 'Sent it.' });
    const reply = openai.chat.completions.create({ ...ask('email Ann'), stream: true });
    await until(() => gate.approvals.pending().length === 1, 'the approval request');
    const request = gate.approvals.pending()[0]!;
    expect(request).toMatchObject({ tool: 'send_email', sessionId: 'openai', channel: 'api' });
    expect(email.calls).toHaveLength(0);
    const answer = await fetch(`${url}/api/approvals/${request.id}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ answer: 'once' }),
    });
    expect(answer.status).toBe(200);
    let text = '';
    for await (const chunk of await reply) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Sent it.');
    expect(email.calls).toEqual([{ to: 'ann@example.com' }]);
  });
});
