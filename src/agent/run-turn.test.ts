import { describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../test/support/scripted-model.js';
import { toolContext } from '../../test/support/tool-context.js';
import type { ChatMessage } from '../llm/types.js';
import { type RunTurnOptions, runTurn } from './run-turn.js';
import type { Tool } from './tool.js';
import { ToolRegistry } from './tool-registry.js';

const echo: Tool = {
  name: 'echo',
  description: 'Echo text back',
  parameters: {
    type: 'object',
    properties: { text: { type: 'string' }, times: { type: 'integer', minimum: 1, default: 1 } },
    required: ['text'],
    additionalProperties: false,
  },
  risk: 'safe',
  async execute(args) {
    return { content: String(args['text']).repeat(Number(args['times'])) };
  },
};

function options(model: ScriptedModel, extra: Partial<RunTurnOptions> = {}): RunTurnOptions {
  const registry = new ToolRegistry().register(echo);
  return {
    model,
    registry,
    system: [{ text: 'system', cache: true }],
    messages: [{ role: 'user', content: 'hi' }],
    toolContext: toolContext(),
    maxRounds: 5,
    repeatLimit: 3,
    maxToolResultChars: 1000,
    signal: new AbortController().signal,
    ...extra,
  };
}

const lastToolMessage = (messages: ChatMessage[]) =>
  messages
    .filter((message): message is Extract<ChatMessage, { role: 'tool' }> => message.role === 'tool')
    .at(-1);

describe('runTurn', () => {
  it('answers without tools in one round', async () => {
    const model = new ScriptedModel().script({ text: 'hello there' });
    const result = await runTurn(options(model));
    expect(result.reply).toBe('hello there');
    expect(result.rounds).toBe(1);
    expect(result.stopReason).toBe('stop');
    expect(result.produced).toEqual([{ message: { role: 'assistant', content: 'hello there' } }]);
  });

  it('runs a tool call and feeds the result back', async () => {
    const model = new ScriptedModel().script(
      { toolCalls: [{ name: 'echo', arguments: { text: 'ab', times: 2 } }] },
      { text: 'done' },
    );
    const events: string[] = [];
    const result = await runTurn(options(model, { onEvent: (event) => events.push(event.type) }));
    expect(result.reply).toBe('done');
    expect(result.rounds).toBe(2);
    const tool = lastToolMessage(model.requests[1]!.messages);
    expect(tool?.content).toBe('abab');
    expect(tool?.isError).toBeUndefined();
    expect(events).toContain('tool-call-start');
    expect(events).toContain('tool-call-end');
    expect(result.usage.inputTokens).toBe(20);
  });

  it('runs parallel tool calls and answers each by id', async () => {
    const model = new ScriptedModel().script(
      {
        toolCalls: [
          { name: 'echo', arguments: { text: 'x' }, id: 'a' },
          { name: 'echo', arguments: { text: 'y' }, id: 'b' },
        ],
      },
      { text: 'both' },
    );
    await runTurn(options(model));
    const tools = model.requests[1]!.messages.filter((message) => message.role === 'tool');
    expect(tools.map((message) => message.role === 'tool' && [message.toolCallId, message.content])).toEqual([
      ['a', 'x'],
      ['b', 'y'],
    ]);
  });

  it('returns validation errors to the model instead of running the tool', async () => {
    const model = new ScriptedModel().script(
      { toolCalls: [{ name: 'echo', arguments: { text: 5, extra: true } }] },
      { toolCalls: [{ name: 'echo', arguments: '{"text": "unterminated' }] },
      { toolCalls: [{ name: 'nope', arguments: {} }] },
      { text: 'gave up' },
    );
    const result = await runTurn(options(model));
    const [first, second, third] = [1, 2, 3].map((index) => lastToolMessage(model.requests[index]!.messages));
    expect(first?.isError).toBe(true);
    expect(first?.content).toMatch(/text: must be string/);
    expect(first?.content).toMatch(/unknown property "extra"/);
    expect(second?.content).toMatch(/not valid JSON/);
    expect(third?.content).toMatch(/Unknown tool "nope". Available tools: echo/);
    expect(result.reply).toBe('gave up');
  });

  it('refuses oversized arguments before parsing them', async () => {
    const huge = JSON.stringify({ text: 'x'.repeat(600_000) });
    const model = new ScriptedModel().script(
      { toolCalls: [{ name: 'echo', arguments: huge }] },
      { text: 'ok' },
    );
    await runTurn(options(model));
    expect(lastToolMessage(model.requests[1]!.messages)?.content).toMatch(/the limit is 524288/);
  });

  it('turns 200,000-deep JSON arguments into a tool error, not a crash', async () => {
    const deep = `{"text": "x", "nested": ${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    const model = new ScriptedModel().script(
      { toolCalls: [{ name: 'echo', arguments: deep }] },
      { text: 'ok' },
    );
    const result = await runTurn(options(model));
    expect(result.reply).toBe('ok');
    expect(lastToolMessage(model.requests[1]!.messages)).toMatchObject({
      isError: true,
      content: expect.stringMatching(/nest arrays or objects more than 64 levels deep/),
    });
    // Depth inside strings does not count.
    const inString = JSON.stringify({ text: '['.repeat(1000) });
    const again = new ScriptedModel().script(
      { toolCalls: [{ name: 'echo', arguments: inString }] },
      { text: 'ok' },
    );
    await runTurn(options(again));
    expect(lastToolMessage(again.requests[1]!.messages)?.content).toBe('['.repeat(1000));
  });

  it('runs at most maxParallelTools calls at once and refuses calls past the per-response cap', async () => {
    let running = 0;
    let peak = 0;
    const slow: Tool = {
      ...echo,
      name: 'slow',
      async execute() {
        running++;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running--;
        return { content: 'slept' };
      },
    };
    const calls = Array.from({ length: 40 }, (_, index) => ({
      name: 'slow',
      arguments: { text: String(index) },
      id: `c${index}`,
    }));
    const model = new ScriptedModel().script({ toolCalls: calls }, { text: 'done' });
    const registry = new ToolRegistry().register(slow);
    await runTurn(options(model, { registry, maxParallelTools: 3 }));
    expect(peak).toBe(3);
    const results = model.requests[1]!.messages.filter((message) => message.role === 'tool');
    expect(results).toHaveLength(40);
    expect(results.filter((message) => message.content === 'slept')).toHaveLength(32);
    expect(results.at(-1)).toMatchObject({
      isError: true,
      content: expect.stringMatching(/at most 32 tool calls/),
    });
  });

  it('turns a throwing tool into an error result and keeps going', async () => {
    const registry = new ToolRegistry().register({
      ...echo,
      name: 'boom',
      async execute() {
        throw new Error('disk on fire');
      },
    });
    const model = new ScriptedModel().script(
      { toolCalls: [{ name: 'boom', arguments: { text: 'a' } }] },
      { text: 'sorry' },
    );
    const result = await runTurn(options(model, { registry }));
    expect(lastToolMessage(model.requests[1]!.messages)?.content).toBe('boom failed: disk on fire');
    expect(result.reply).toBe('sorry');
  });

  it('stops at the round limit with one tool-less wrap-up call and tells the user', async () => {
    const model = new ScriptedModel();
    let n = 0;
    model.script(
      ...Array.from({ length: 3 }, () => () => ({
        toolCalls: [{ name: 'echo', arguments: { text: `${n++}` } }],
      })),
    );
    model.script({ text: 'here is what I found' });
    const result = await runTurn(options(model, { maxRounds: 3 }));
    expect(model.requests).toHaveLength(4);
    expect(model.requests[3]!.toolChoice).toBe('none');
    expect(model.requests[3]!.system.at(-1)?.text).toMatch(/limit of 3 tool rounds/);
    expect(result.reply).toBe('here is what I found');
    expect(result.notice).toMatch(/limit of 3 tool rounds/);
  });

  it('detects the same call repeated and stops it', async () => {
    const model = new ScriptedModel();
    model.script(
      ...Array.from({ length: 10 }, () => ({ toolCalls: [{ name: 'echo', arguments: { text: 'same' } }] })),
    );
    const result = await runTurn(options(model, { maxRounds: 10, repeatLimit: 2 }));
    expect(result.notice).toMatch(/repeating echo call/);
    expect(model.requests).toHaveLength(4);
    const stopped = lastToolMessage(model.requests[3]!.messages);
    expect(stopped?.content).toMatch(/already made 2 times/);
  });

  it('caps long tool output for the model and keeps the full text as details', async () => {
    const registry = new ToolRegistry().register({
      ...echo,
      async execute() {
        return { content: `HEAD${'m'.repeat(5000)}TAIL` };
      },
    });
    const model = new ScriptedModel().script(
      { toolCalls: [{ name: 'echo', arguments: { text: 'a' } }] },
      { text: 'ok' },
    );
    const result = await runTurn(options(model, { registry, maxToolResultChars: 500 }));
    const tool = result.produced.find((item) => item.message.role === 'tool')!;
    const content = tool.message.role === 'tool' ? tool.message.content : '';
    expect(content.length).toBeLessThanOrEqual(500);
    expect(content.startsWith('HEAD')).toBe(true);
    expect(content.endsWith('TAIL')).toBe(true);
    expect(tool.details).toHaveLength(5008);
  });

  it('stubs tool results the model already consumed in later rounds', async () => {
    const registry = new ToolRegistry().register({
      ...echo,
      async execute(args) {
        return { content: `${String(args['text'])}:${'z'.repeat(3000)}` };
      },
    });
    const model = new ScriptedModel().script(
      { toolCalls: [{ name: 'echo', arguments: { text: 'one' } }] },
      { toolCalls: [{ name: 'echo', arguments: { text: 'two' } }] },
      { text: 'end' },
    );
    await runTurn(options(model, { registry, maxToolResultChars: 10_000 }));
    const third = model.requests[2]!.messages.filter((message) => message.role === 'tool');
    const [old, fresh] = third.map((message) => (message.role === 'tool' ? message.content : ''));
    expect(old).toMatch(/^one:z+\n\[… \d+ more characters of this earlier echo result omitted/);
    expect(old!.length).toBeLessThan(600);
    expect(fresh).toHaveLength(3004);
  });

  it('ends with aborted when the signal fires', async () => {
    const controller = new AbortController();
    const model = new ScriptedModel().script({ text: 'never' });
    model.gate = new Promise(() => {});
    const pending = runTurn(options(model, { signal: controller.signal }));
    controller.abort();
    const result = await pending;
    expect(result.stopReason).toBe('aborted');
    expect(result.produced).toEqual([]);
  });

  it('passes a model error through with its message', async () => {
    const model = new ScriptedModel().script({ stopReason: 'error' });
    const result = await runTurn(options(model));
    expect(result.stopReason).toBe('error');
    expect(result.errorMessage).toBe('scripted failure');
  });

  it('lets beforeToolCall deny a call', async () => {
    const model = new ScriptedModel().script(
      { toolCalls: [{ name: 'echo', arguments: { text: 'a' } }] },
      { text: 'ok' },
    );
    await runTurn(
      options(model, { beforeToolCall: async () => ({ allow: false, reason: 'the owner said no' }) }),
    );
    expect(lastToolMessage(model.requests[1]!.messages)?.content).toBe('Not allowed: the owner said no');
  });
});

describe('argument validation across schema drafts', () => {
  it('validates a 2020-12 schema and a draft-07 one', async () => {
    const { validateArguments } = await import('./validate-arguments.js');
    const modern = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { n: { type: 'integer' } },
      required: ['n'],
    };
    expect(validateArguments('t', '{"n": 1}', modern)).toEqual({ ok: true, args: { n: 1 } });
    expect(validateArguments('t', '{"n": "x"}', modern)).toMatchObject({ ok: false });
    const broken = { type: 'object', properties: { n: { type: 'no-such-type' } } };
    expect(validateArguments('t', '{}', broken)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/invalid argument schema/),
    });
  });
});

describe('on-demand tools (use_tools)', () => {
  const extra = (name: string, description: string): Tool => ({ ...echo, name, description, core: false });

  it('sends core schemas plus a catalog, then the activated schemas for the rest of the turn', async () => {
    const registry = new ToolRegistry()
      .register({ ...echo, core: true })
      .register(extra('weather', 'Current weather for a place. Uses Open-Meteo.'))
      .register(extra('web_fetch', 'Fetch a web page as Markdown.'));
    const model = new ScriptedModel().script(
      { toolCalls: [{ name: 'use_tools', arguments: { names: ['weather'] } }] },
      { toolCalls: [{ name: 'weather', arguments: { text: 'Berlin' } }] },
      { text: 'sunny' },
    );
    const result = await runTurn(options(model, { registry }));
    const names = (index: number) => model.requests[index]!.tools!.map((tool) => tool.name);
    expect(names(0)).toEqual(['echo', 'use_tools']);
    const catalog = model.requests[0]!.tools!.find((tool) => tool.name === 'use_tools')!.description;
    expect(catalog).toContain('- weather: Current weather for a place\n');
    expect(catalog).toMatch(/- web_fetch: Fetch a web page as Markdown$/);
    expect(catalog).not.toContain('Open-Meteo');
    expect(names(1)).toEqual(['echo', 'weather', 'use_tools']);
    expect(names(2)).toEqual(['echo', 'weather', 'use_tools']);
    expect(model.requests[2]!.tools!.find((tool) => tool.name === 'use_tools')!.description).not.toContain(
      'weather',
    );
    expect(result.reply).toBe('sunny');
  });

  it('reports unknown names and bad arguments to the model', async () => {
    const registry = new ToolRegistry()
      .register({ ...echo, core: true })
      .register(extra('weather', 'Weather.'));
    const model = new ScriptedModel().script(
      { toolCalls: [{ name: 'use_tools', arguments: { names: ['weather', 'teleport'] } }] },
      { toolCalls: [{ name: 'use_tools', arguments: { wrong: true } }] },
      { text: 'ok' },
    );
    await runTurn(options(model, { registry }));
    expect(lastToolMessage(model.requests[1]!.messages)?.content).toMatch(
      /Unknown tools: teleport.*Activated: weather/,
    );
    expect(lastToolMessage(model.requests[2]!.messages)?.content).toMatch(/use_tools needs/);
  });

  it('omits use_tools when every tool is core', async () => {
    const model = new ScriptedModel().script({ text: 'hi' });
    await runTurn(options(model, { registry: new ToolRegistry().register({ ...echo, core: true }) }));
    expect(model.requests[0]!.tools!.map((tool) => tool.name)).toEqual(['echo']);
  });
});

describe('the context window during a turn', () => {
  it('drops the oldest history, then cuts this turn’s tool results, so every request fits', async () => {
    const { estimateRequestTokens } = await import('../llm/token-estimate.js');
    const registry = new ToolRegistry().register({
      ...echo,
      core: true,
      async execute() {
        return { content: `START ${'lorem ipsum dolor '.repeat(2000)} END` };
      },
    });
    const history: ChatMessage[] = Array.from({ length: 40 }, (_, i) =>
      i % 2 === 0
        ? { role: 'user' as const, content: `old question ${i} ${'x y '.repeat(40)}` }
        : { role: 'assistant' as const, content: `old answer ${i} ${'z w '.repeat(40)}` },
    );
    const model = new ScriptedModel().script(
      { toolCalls: [{ name: 'echo', arguments: { text: 'a' } }] },
      { toolCalls: [{ name: 'echo', arguments: { text: 'b' } }] },
      { text: 'done' },
    );
    const result = await runTurn(
      options(model, {
        registry,
        messages: [...history, { role: 'user', content: 'the newest question' }],
        maxToolResultChars: 40_000,
        maxInputTokens: 6_000,
      }),
    );
    expect(result.reply).toBe('done');
    for (const request of model.requests) {
      expect(estimateRequestTokens(request)).toBeLessThanOrEqual(6_000);
      expect(JSON.stringify(request.messages)).toContain('the newest question');
      expect(request.messages[0]!.role).not.toBe('tool');
    }
    expect(JSON.stringify(model.requests[0]!.messages)).toContain('old question 0');
    expect(JSON.stringify(model.requests[2]!.messages)).not.toContain('old question 0');
  });
});
