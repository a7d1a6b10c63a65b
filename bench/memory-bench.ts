/**
 * Memory benchmark: prompt tokens per turn over a 200-turn scripted conversation with consolidation on
 * (they must plateau, not grow), what consolidation costs per consolidated message, and MEMORY.md's size
 * before and after one Dream pass (each consolidation adds new values of three of 12 attributes, so values
 * pile up and contradict; the Dream model keeps the newest of each, as checkTidy allows).
 *   npx tsx bench/memory-bench.ts
 * Model: in-process, 8k window, answers at once; a consolidation answers with a save_memory call.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentRuntime } from '../src/agent/agent-runtime.js';
import { ContextBuilder } from '../src/agent/context-builder.js';
import { ToolRegistry } from '../src/agent/tool-registry.js';
import { ensureWorkspaceFiles } from '../src/agent/workspace-files.js';
import { MessageBus } from '../src/bus/message-bus.js';
import { estimateRequestTokens, estimateTokens } from '../src/llm/token-estimate.js';
import type { ChatModel, ModelEvent, ModelRequest } from '../src/llm/types.js';
import { createMemory } from '../src/memory/create-memory.js';
import { DEFAULT_MEMORY_CONFIG } from '../src/memory/memory-config.js';
import { parseMemory } from '../src/memory/tidy/fact-lines.js';
import { MemoryTidy } from '../src/memory/tidy/memory-tidy.js';
import { openDatabase } from '../src/store/open-database.js';
import { openStores } from '../src/store/open-stores.js';
import { SqliteSessionStore } from '../src/store/sqlite-session-store.js';

export interface MemoryBenchResult {
  /** Estimated prompt tokens of each turn's (first) model request. */
  tokensPerTurn: number[];
  /** Consolidation input + output tokens per consolidated message. */
  consolidationTokensPerTurn: number;
  consolidations: number;
  consolidatedMessages: number;
  /** MEMORY.md after the 200 turns and after one Dream pass: characters and facts. */
  memoryChars: { before: number; after: number; budget: number };
  memoryFacts: { before: number; after: number };
  /** Tokens and model calls of the Dream pass. */
  dream: { tokens: number; calls: number; status: string };
}

const LIMITS = { contextWindow: 8_000, maxOutputTokens: 1_000 };
const RESERVE = 1_024;

/** Runs the 200-turn conversation; returns the figures (measures, never asserts). */
export async function runMemoryBench(turns = 200): Promise<MemoryBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'wren-memory-bench-'));
  const workspace = join(dir, 'workspace');
  ensureWorkspaceFiles(workspace);
  const db = openDatabase(join(dir, 'wren.db'));
  const chatPrompts: number[] = [];
  let consolidationTokens = 0;
  let consolidations = 0;
  let fact = 0;
  let dreamCalls = 0;
  let dreamTokens = 0;
  const model: ChatModel = {
    limits: () => LIMITS,
    async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
      const input = estimateRequestTokens(request);
      if (request.tools?.some((tool) => tool.name === 'save_memory')) {
        consolidations++;
        const args = JSON.stringify({
          history_entry: `Discussed topics up to fact ${fact}. Decisions recorded; nothing open.`,
          summary: `The owner and Wren discussed a series of topics (${fact} facts so far); the latest concern project planning.`,
          memory_add: Array.from(
            { length: 3 },
            () => `The owner's attribute ${++fact % ATTRIBUTES} is value ${fact}.`,
          ),
        });
        const done = toolCallDone(`c${consolidations}`, 'save_memory', args, input);
        consolidationTokens += input + done.result.usage.outputTokens;
        yield done;
        return;
      }
      if (request.tools?.some((tool) => tool.name === 'save_tidy')) {
        dreamCalls++;
        const args = JSON.stringify(newestWins(String(request.messages[0]?.content ?? '')));
        const done = toolCallDone(`d${dreamCalls}`, 'save_tidy', args, input);
        dreamTokens += input + done.result.usage.outputTokens;
        yield done;
        return;
      }
      chatPrompts.push(input);
      const text = `Here is a considered answer about that topic. ${'It covers the details you asked for. '.repeat(6)}`;
      yield { type: 'text-delta', text };
      yield {
        type: 'done',
        result: { text, toolCalls: [], stopReason: 'stop', usage: { inputTokens: input, outputTokens: 60 } },
      };
    },
  };
  const store = new SqliteSessionStore(db);
  const memory = createMemory({
    stores: openStores(db),
    store,
    model,
    workspace: () => workspace,
    config: () => DEFAULT_MEMORY_CONFIG,
    historyBudget: () => LIMITS.contextWindow - LIMITS.maxOutputTokens - RESERVE,
    timezone: () => 'UTC',
  });
  await memory.start();
  const registry = new ToolRegistry();
  for (const tool of memory.tools) registry.register(tool);
  const bus = new MessageBus();
  const runtime = new AgentRuntime({
    bus,
    store,
    model,
    registry,
    context: new ContextBuilder({ workspace, timezone: 'UTC', ...memory.contextOptions() }),
    workspace: () => workspace,
    settings: () => ({
      maxRounds: 4,
      maxConcurrency: 1,
      maxToolResultChars: 16_000,
      repeatLimit: 3,
      historyReserveTokens: RESERVE,
    }),
    onTurnEnd: ({ session }) => memory.afterTurn(session),
  });
  runtime.start();
  const tokensPerTurn: number[] = [];
  try {
    for (let i = 0; i < turns; i++) {
      const before = chatPrompts.length;
      await bus.request({
        id: `t${i}`,
        channel: 'bench',
        senderId: 'owner',
        fromOwner: true,
        chatId: 'bench',
        text: `Turn ${i}: let us talk about topic ${i}, with enough words to make the history grow steadily.`,
      });
      tokensPerTurn.push(chatPrompts[before] ?? 0);
      await memory.consolidator.idle(); // deterministic: let a due consolidation land before the next turn
    }
  } finally {
    await runtime.stop(1000);
    await memory.close(1000);
  }
  const consolidated = memory.consolidator
    .status()
    .reduce((sum, entry) => sum + entry.consolidatedMessages, 0);
  const memoryPath = join(workspace, 'MEMORY.md');
  const before = readFileSync(memoryPath, 'utf8');
  const tidy = new MemoryTidy({
    stores: openStores(db),
    model,
    workspace: () => workspace,
    config: () => DEFAULT_MEMORY_CONFIG,
    timezone: () => 'UTC',
  });
  const dream = await tidy.run('tidy:bench');
  const after = readFileSync(memoryPath, 'utf8');
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return {
    tokensPerTurn,
    consolidationTokensPerTurn: consolidated ? Math.round(consolidationTokens / consolidated) : 0,
    consolidations,
    consolidatedMessages: consolidated,
    memoryChars: {
      before: before.length,
      after: after.length,
      budget: DEFAULT_MEMORY_CONFIG.memoryPromptChars,
    },
    memoryFacts: { before: parseMemory(before).facts.length, after: parseMemory(after).facts.length },
    dream: { tokens: dreamTokens, calls: dreamCalls, status: dream.status },
  };
}

/** The model's answer as one tool call, its output counted as the arguments' tokens. */
function toolCallDone(id: string, name: string, args: string, input: number) {
  return {
    type: 'done' as const,
    result: {
      text: '',
      toolCalls: [{ id, name, arguments: args }],
      stopReason: 'tool_calls' as const,
      usage: { inputTokens: input, outputTokens: estimateTokens(args) },
    },
  };
}

/** Attributes the scripted consolidation cycles through (each new value contradicts the last). */
const ATTRIBUTES = 12;

/** The Dream answer of a model that keeps the newest value of each attribute (later lines are newer). */
function newestWins(user: string): {
  memory_md: string;
  dropped: Array<{ line: string; replaced_by: string }>;
} {
  const lines = (user.split('<memory-md>\n')[1] ?? '').split('\n</memory-md>')[0]!.split('\n');
  const attribute = (line: string) => /^- The owner's attribute (\d+) is/.exec(line)?.[1];
  const newest = new Map<string, string>();
  for (const line of lines) {
    const key = attribute(line);
    if (key) newest.set(key, line);
  }
  const dropped = lines.flatMap((line) => {
    const key = attribute(line);
    return key && newest.get(key) !== line ? [{ line, replaced_by: newest.get(key)! }] : [];
  });
  const gone = new Set(dropped.map((item) => item.line));
  return { memory_md: lines.filter((line) => !gone.has(line)).join('\n'), dropped };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await runMemoryBench();
  const t = result.tokensPerTurn;
  const at = (n: number) => t[n - 1] ?? 0;
  console.log(
    `prompt tokens at turn 1/10/50/100/150/200: ${[1, 10, 50, 100, 150, 200].map(at).join(' / ')}; max ${Math.max(...t)}`,
  );
  console.log(
    `consolidations ${result.consolidations}, messages consolidated ${result.consolidatedMessages}, tokens per consolidated message ${result.consolidationTokensPerTurn}`,
  );
  console.log(
    `MEMORY.md ${result.memoryChars.before} chars (${result.memoryFacts.before} facts) → ${result.memoryChars.after} chars (${result.memoryFacts.after} facts) after Dream (${result.dream.status}, ${result.dream.tokens} tokens in ${result.dream.calls} calls); prompt cap ${result.memoryChars.budget}`,
  );
}
