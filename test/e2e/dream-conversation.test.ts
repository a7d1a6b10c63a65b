import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type WrenApp } from '../../src/app/create-app.js';
import { estimateRequestTokens } from '../../src/llm/token-estimate.js';
import type { ChatModel, ModelEvent, ModelRequest, ModelResult } from '../../src/llm/types.js';
import { parseMemory } from '../../src/memory/tidy/fact-lines.js';
import { cliEnv, makeHome, runCli, waitFor } from '../support/wren-home.js';

/**
 * 200 turns in which the owner states facts, restates some and changes others; consolidation (a scripted
 * model that only ever adds what it reads, the way a weak model does) leaves the contradictions in
 * MEMORY.md; the nightly Dream pass (a scripted model that keeps the newest value of each attribute) must
 * leave each current fact once, the older values in HISTORY.md, and every step in `wren memory log`.
 */

const ATTRIBUTES: Record<string, string[]> = {
  city: ['Berlin', 'Munich', 'Lisbon'],
  employer: ['Acme', 'Globex'],
  editor: ['Vim', 'Helix'],
  'dog name': ['Rex'],
  'coffee order': ['flat white', 'oat cortado', 'black filter'],
  'partner name': ['Alex'],
  'gym day': ['Monday', 'Thursday'],
  phone: ['Pixel 7', 'Pixel 9'],
  car: ['a blue Golf'],
  'running goal': ['10 km', 'half marathon', 'Berlin marathon'],
  'favourite band': ['Radiohead'],
  'team lead': ['Priya', 'Jonas'],
};

/** Turn → what the owner says: attributes introduced early, restated or changed later, chat in between. */
function conversation(turns: number): Array<{ text: string; attribute?: string; value?: string }> {
  const script: Array<{ text: string; attribute?: string; value?: string }> = [];
  const statements: Array<{ attribute: string; value: string }> = [];
  const names = Object.keys(ATTRIBUTES);
  for (let round = 0; round < 3; round++)
    for (const attribute of names) {
      const values = ATTRIBUTES[attribute]!;
      // A value that does not change is restated (a duplicate consolidation must not copy).
      statements.push({ attribute, value: values[Math.min(round, values.length - 1)]! });
    }
  const every = Math.floor(turns / statements.length);
  for (let turn = 0; turn < turns; turn++) {
    const statement = turn % every === 0 ? statements[turn / every] : undefined;
    script.push(
      statement
        ? { text: `Remember: my ${statement.attribute} is ${statement.value}.`, ...statement }
        : { text: `Turn ${turn}: tell me something short about topic ${turn}, please.` },
    );
  }
  return script;
}

const fact = (attribute: string, value: string) => `The owner's ${attribute} is ${value}.`;
const FACT = /^- The owner's (.+?) is (.+)\.$/;

/** The two scripted models behind one ChatModel: chat, consolidation (save_memory) and Dream (save_tidy). */
function scriptedModel() {
  const counts = { consolidations: 0, writes: 0, dreams: 0 };
  let ids = 0;
  const answer = (request: ModelRequest): ModelResult => {
    const usage = { inputTokens: estimateRequestTokens(request), outputTokens: 20 };
    const text = request.messages.map((message) => JSON.stringify(message.content)).join('\n');
    const call = (name: string, args: unknown): ModelResult => ({
      text: '',
      toolCalls: [{ id: `${name}-${++ids}`, name, arguments: JSON.stringify(args) }],
      stopReason: 'tool_calls',
      usage,
    });
    if (request.tools?.some((tool) => tool.name === 'save_memory')) {
      counts.consolidations++;
      const excerpt = text.split('<conversation-excerpt>')[1] ?? '';
      const memory = text.split('<memory-md>')[1]?.split('</memory-md>')[0] ?? '';
      const said = [...excerpt.matchAll(/Remember: my ([a-z ]+) is ([^.\\]+)\./g)].map((match) =>
        fact(match[1]!, match[2]!),
      );
      if (said.some((line) => !memory.includes(line))) counts.writes++;
      return call('save_memory', {
        history_entry: said.length
          ? `The owner told Wren: ${said.join(' ')}`
          : 'Small talk; nothing to keep.',
        summary: 'The owner shares facts about their life now and then.',
        memory_add: said,
      });
    }
    if (request.tools?.some((tool) => tool.name === 'save_tidy')) {
      counts.dreams++;
      const chunk = (text.split('<memory-md>\\n')[1] ?? '').split('\\n</memory-md>')[0]!.split('\\n');
      const newest = new Map<string, string>();
      for (const line of chunk) {
        const match = FACT.exec(line);
        if (match) newest.set(match[1]!, line);
      }
      const kept: string[] = [];
      const dropped: Array<{ line: string; replaced_by: string }> = [];
      const seen = new Set<string>();
      for (const line of chunk) {
        const match = FACT.exec(line);
        const winner = match ? newest.get(match[1]!)! : line;
        if (winner === line && !seen.has(line)) kept.push(line);
        else if (winner !== line) dropped.push({ line, replaced_by: winner });
        seen.add(line);
      }
      return call('save_tidy', { memory_md: kept.join('\n'), dropped });
    }
    return { text: 'Noted.', toolCalls: [], stopReason: 'stop', usage };
  };
  const model: ChatModel = {
    limits: () => ({ contextWindow: 6000, maxOutputTokens: 500 }),
    async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
      const result = answer(request);
      if (result.text) yield { type: 'text-delta', text: result.text };
      for (const call of result.toolCalls) yield { type: 'tool-call', call };
      yield { type: 'done', result };
    },
  };
  return { model, counts };
}

const apps: WrenApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close(1000);
});

describe('Dream over a 200-turn conversation', () => {
  it('leaves each current fact once, the older values in HISTORY.md, within budget, every step in the log', async () => {
    const home = makeHome(
      'agent:\n  timezone: UTC\nmemory:\n  consolidate_at: 0.2\n  dream:\n    idle_minutes: 0\n',
    );
    const { model, counts } = scriptedModel();
    const wren = await createApp({
      home,
      model,
      probeLocalModels: false,
      env: { PATH: process.env['PATH'] },
    });
    apps.push(wren);
    const workspace = wren.config().workspace;
    const read = (name: string) => readFileSync(join(workspace, name), 'utf8');
    const script = conversation(200);
    for (const [index, turn] of script.entries()) {
      await wren.bus.request({
        id: `t${index}`,
        channel: 'cli',
        senderId: 'owner',
        fromOwner: true,
        chatId: 'terminal',
        text: turn.text,
      });
      await wren.memory.consolidator.idle();
    }
    const beforeDream = parseMemory(read('MEMORY.md')).facts.map((line) => line.text);
    // Consolidation kept every value it read, once each: the contradictions are all there.
    const allValues = Object.entries(ATTRIBUTES).flatMap(([name, values]) =>
      values.map((v) => `- ${fact(name, v)}`),
    );
    expect([...beforeDream].sort()).toEqual([...allValues].sort());
    expect(counts.consolidations).toBeGreaterThanOrEqual(8);

    // The nightly slot came due; the owner is idle.
    wren.settings.set(
      'memory.tidy.schedule',
      JSON.stringify({ every: '0 3 * * *', timezone: 'UTC', nextAt: Date.now() - 60_000 }),
    );
    wren.proactive.start();
    await waitFor(() => wren.proactive.outbox.feed().some((entry) => entry.kind === 'tidy'), 20_000);
    const entry = wren.proactive.outbox.feed().find((item) => item.kind === 'tidy')!;
    expect(entry.failed).toBe(false);
    expect(counts.dreams).toBe(1);

    const after = parseMemory(read('MEMORY.md')).facts.map((line) => line.text);
    const current = Object.entries(ATTRIBUTES).map(([name, values]) => `- ${fact(name, values.at(-1)!)}`);
    expect([...after].sort()).toEqual([...current].sort());
    const memory = read('MEMORY.md');
    expect(memory.length).toBeLessThanOrEqual(wren.config().memory.memoryPromptChars);
    const history = read('HISTORY.md');
    for (const [name, values] of Object.entries(ATTRIBUTES))
      for (const old of values.slice(0, -1))
        expect(history).toContain(
          `- dropped "${fact(name, old)}" (replaced by the newer "${fact(name, values.at(-1)!)}")`,
        );
    await wren.proactive.stop(1000);
    await wren.close(1000);
    apps.splice(0);

    // Every step is in the history, newest first: the tidy, each consolidation that added a fact, and the
    // template as Wren first saw it.
    const log = await runCli(['memory', 'log', 'MEMORY.md', '--json', '--limit', '200'], cliEnv(home));
    expect(log).toMatchObject({ code: 0, stderr: '' });
    const versions = JSON.parse(log.stdout) as Array<{ id: number; author: string }>;
    expect(versions.map((version) => version.author)).toEqual([
      'tidy',
      ...Array.from({ length: counts.writes }, () => 'consolidation'),
      'disk',
    ]);
    const diff = await runCli(['memory', 'diff', String(versions[0]!.id)], cliEnv(home));
    for (const [name, values] of Object.entries(ATTRIBUTES))
      for (const old of values.slice(0, -1)) expect(diff.stdout).toContain(`-- ${fact(name, old)}`);
  }, 120_000);
});
