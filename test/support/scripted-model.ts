import type {
  ChatModel,
  ModelEvent,
  ModelLimits,
  ModelRequest,
  ModelResult,
  ToolCall,
} from '../../src/llm/types.js';

export type ScriptStep =
  | {
      text?: string;
      toolCalls?: Array<{ name: string; arguments: unknown; id?: string }>;
      stopReason?: ModelResult['stopReason'];
    }
  | ((request: ModelRequest) => ScriptStep);

/**
 * An in-process ChatModel that answers from a script and records every request: the injected model for unit
 * tests of the loop and runtime (end-to-end tests use the fake HTTP server instead). An empty script answers
 * `ok`. A step may wait on `gate` to let a test hold a turn open, and on `midAnswer` after its first text
 * delta, so a test can see what reached the client before the answer finished.
 */
export class ScriptedModel implements ChatModel {
  readonly requests: ModelRequest[] = [];
  private readonly steps: ScriptStep[] = [];
  private counter = 0;
  gate: Promise<void> | undefined;
  midAnswer: Promise<void> | undefined;

  constructor(
    private readonly modelLimits: ModelLimits = { contextWindow: 32_000, maxOutputTokens: 1_000 },
  ) {}

  script(...steps: ScriptStep[]): this {
    this.steps.push(...steps);
    return this;
  }

  limits(): ModelLimits {
    return this.modelLimits;
  }

  async *stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelEvent> {
    this.requests.push(structuredClone(request));
    let step: ScriptStep = this.steps.shift() ?? { text: 'ok' };
    while (typeof step === 'function') step = step(request);
    if (this.gate && !signal?.aborted) {
      await Promise.race([
        this.gate,
        new Promise((resolve) => signal?.addEventListener('abort', resolve, { once: true })),
      ]);
    }
    const usage = { inputTokens: 10, outputTokens: 5 };
    if (signal?.aborted) {
      yield { type: 'done', result: { text: '', toolCalls: [], stopReason: 'aborted', usage } };
      return;
    }
    const text = step.text ?? '';
    let first = true;
    for (const piece of text.match(/.{1,4}/gs) ?? []) {
      yield { type: 'text-delta', text: piece };
      if (first && this.midAnswer) await this.midAnswer;
      first = false;
    }
    const toolCalls: ToolCall[] = (step.toolCalls ?? []).map((call) => ({
      id: call.id ?? `call_${++this.counter}`,
      name: call.name,
      arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
    }));
    for (const call of toolCalls) yield { type: 'tool-call', call };
    const stopReason = step.stopReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop');
    yield {
      type: 'done',
      result: {
        text,
        toolCalls,
        stopReason,
        usage,
        endpoint: 'scripted',
        ...(stopReason === 'error' ? { errorMessage: 'scripted failure' } : {}),
      },
    };
  }
}
