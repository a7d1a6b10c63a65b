import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NewMessage } from '../../src/agent/session-store.js';
import { ensureWorkspaceFiles } from '../../src/agent/workspace-files.js';
import type {
  ChatModel,
  ModelEvent,
  ModelLimits,
  ModelRequest,
  ModelResult,
  ToolCall,
} from '../../src/llm/types.js';
import { DEFAULT_MEMORY_CONFIG, type MemoryConfig } from '../../src/memory/memory-config.js';
import { openDatabase } from '../../src/store/open-database.js';

/** A real SQLite file with schema v1 + the memory migration, and a workspace with the default files. */
export function memoryFixture() {
  const dir = mkdtempSync(join(tmpdir(), 'wren-memory-'));
  const workspace = join(dir, 'workspace');
  ensureWorkspaceFiles(workspace);
  const path = join(dir, 'wren.db');
  const db = openMemoryDatabase(path);
  return { dir, workspace, path, db };
}

/** Opens and migrates a database file to the current schema. */
export function openMemoryDatabase(path: string) {
  return openDatabase(path);
}

export const testMemoryConfig = (overrides: Partial<MemoryConfig> = {}): MemoryConfig => ({
  ...DEFAULT_MEMORY_CONFIG,
  retryBaseMs: 20,
  retryMaxMs: 200,
  ...overrides,
});

/** One turn of `n` filler tokens per message. */
export const turn = (text: string, reply: string, tokens = 50): NewMessage[] => [
  { message: { role: 'user', content: text }, tokens },
  { message: { role: 'assistant', content: reply }, tokens },
];

export type Answer = Partial<Pick<ModelResult, 'text' | 'stopReason' | 'errorMessage'>> & {
  toolCalls?: Array<{ name: string; arguments: unknown }>;
};

export const isConsolidation = (request: ModelRequest) =>
  request.tools?.some((tool) => tool.name === 'save_memory') === true;

/**
 * An in-process ChatModel: chat requests and consolidation requests (they declare `save_memory`) go to
 * separate handlers; every request is recorded with its tag.
 */
export class SplitModel implements ChatModel {
  readonly requests: ModelRequest[] = [];
  chat: (request: ModelRequest) => Answer | Promise<Answer> = () => ({ text: 'ok' });
  consolidate: (request: ModelRequest) => Answer | Promise<Answer> = () => saveMemory({});

  constructor(
    private readonly modelLimits: ModelLimits = { contextWindow: 32_000, maxOutputTokens: 1_000 },
  ) {}

  limits(): ModelLimits {
    return this.modelLimits;
  }

  consolidations(): ModelRequest[] {
    return this.requests.filter(isConsolidation);
  }

  async *stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelEvent> {
    this.requests.push(structuredClone(request));
    const answer = await (isConsolidation(request) ? this.consolidate(request) : this.chat(request));
    const usage = { inputTokens: 100, outputTokens: 20 };
    if (signal?.aborted) {
      yield { type: 'done', result: { text: '', toolCalls: [], stopReason: 'aborted', usage } };
      return;
    }
    const toolCalls: ToolCall[] = (answer.toolCalls ?? []).map((call, index) => ({
      id: `call_${this.requests.length}_${index}`,
      name: call.name,
      arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
    }));
    if (answer.text) yield { type: 'text-delta', text: answer.text };
    const stopReason = answer.stopReason ?? (toolCalls.length ? 'tool_calls' : 'stop');
    yield {
      type: 'done',
      result: {
        text: answer.text ?? '',
        toolCalls,
        stopReason,
        usage,
        endpoint: 'split',
        ...(stopReason === 'error' ? { errorMessage: answer.errorMessage ?? 'model failure' } : {}),
      },
    };
  }
}

/** A consolidation answer calling save_memory. */
export function saveMemory(args: {
  history?: string;
  summary?: string;
  add?: string[];
  remove?: string[];
}): Answer {
  return {
    toolCalls: [
      {
        name: 'save_memory',
        arguments: {
          history_entry: args.history ?? 'Talked.',
          summary: args.summary ?? 'A conversation.',
          memory_add: args.add ?? [],
          memory_remove: args.remove ?? [],
        },
      },
    ],
  };
}

/** Polls `check` until it holds or `timeoutMs` passes. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
