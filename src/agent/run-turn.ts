import { setMaxListeners } from 'node:events';
import type {
  ChatMessage,
  ChatModel,
  ModelRequest,
  ModelResult,
  StopReason,
  ToolCall,
  Usage,
} from '../llm/types.js';
import { Semaphore } from '../util/semaphore.js';
import { compressToolResults } from './compress-tool-results.js';
import { fitWindow } from './fit-window.js';
import type { ToolContext, ToolResult } from './tool.js';
import { capText, describeCall } from './tool-output.js';
import { type AfterToolCall, type BeforeToolCall, type ToolRegistry, USE_TOOLS } from './tool-registry.js';
import { MAX_ARGUMENT_CHARS, MAX_ARGUMENT_DEPTH, nestsDeeperThan } from './validate-arguments.js';

/** Tool calls of one response past this many are refused (150 `sleep`s in one response must not all run). */
export const MAX_CALLS_PER_ROUND = 32;
const DEFAULT_PARALLEL_TOOLS = 4;

/** Progress of one turn, as the loop sees it. */
export type LoopEvent =
  | { type: 'text-delta'; text: string }
  | { type: 'tool-call-start'; call: ToolCall; hint: string }
  | { type: 'tool-call-end'; call: ToolCall; result: ToolResult };

export interface RunTurnOptions {
  model: ChatModel;
  registry: ToolRegistry;
  system: ModelRequest['system'];
  /** The history within budget followed by the new user message. */
  messages: ChatMessage[];
  toolContext: ToolContext;
  maxRounds: number;
  /** How many identical calls (same tool, same arguments) a turn may make before the loop stops it. */
  repeatLimit: number;
  /** Tool results longer than this reach the model as head + tail. */
  maxToolResultChars: number;
  maxOutputTokens?: number;
  /**
   * The prompt budget of every request in this turn (context window − max output). Tool results arriving
   * during the turn can push a later round past it; the oldest history then gives way (see fitWindow).
   */
  maxInputTokens?: number;
  tag?: string;
  /** Tool calls of one response that run at once (default 4); the rest wait for a slot. */
  maxParallelTools?: number;
  beforeToolCall?: BeforeToolCall;
  afterToolCall?: AfterToolCall;
  onEvent?: (event: LoopEvent) => void;
  /**
   * Stores each message of the turn the moment it exists (assistant messages when the model answers, tool
   * results as each call completes), so a crash mid-turn leaves a history that shows what already ran.
   * A rejection ends the turn with that error.
   */
  persist?: (message: ProducedMessage) => Promise<void>;
  signal: AbortSignal;
}

export interface ProducedMessage {
  message: ChatMessage;
  /** Full tool output and other UI-only data. */
  details?: unknown;
}

export interface TurnResult {
  /** The final assistant text (may be empty when the turn failed). */
  reply: string;
  /** Assistant and tool messages of this turn, in order, ready to store. */
  produced: ProducedMessage[];
  usage: Usage;
  stopReason: StopReason;
  rounds: number;
  /** The endpoint that answered the last model call. */
  endpoint?: string;
  errorMessage?: string;
  /** Said to the user besides the reply, e.g. that the round limit was hit. */
  notice?: string;
}

function addUsage(total: Usage, more: Usage): void {
  total.inputTokens += more.inputTokens;
  total.outputTokens += more.outputTokens;
  if (more.cachedInputTokens)
    total.cachedInputTokens = (total.cachedInputTokens ?? 0) + more.cachedInputTokens;
}

async function callModel(
  options: RunTurnOptions,
  transcript: ChatMessage[],
  active: ReadonlySet<string>,
  extra?: Partial<ModelRequest>,
): Promise<ModelResult> {
  const request: ModelRequest = {
    system: options.system,
    messages: compressToolResults(transcript),
    tools: options.registry.requestDefinitions(active),
    ...(options.maxOutputTokens ? { maxOutputTokens: options.maxOutputTokens } : {}),
    ...(options.tag ? { tag: options.tag } : {}),
    ...extra,
  };
  const fitted = options.maxInputTokens
    ? fitWindow(request, options.messages.length - 1, options.maxInputTokens)
    : request;
  let result: ModelResult | undefined;
  for await (const event of options.model.stream(fitted, options.signal)) {
    if (event.type === 'text-delta') options.onEvent?.({ type: 'text-delta', text: event.text });
    else if (event.type === 'done') result = event.result;
  }
  return (
    result ?? {
      text: '',
      toolCalls: [],
      stopReason: 'error',
      usage: { inputTokens: 0, outputTokens: 0 },
      errorMessage: 'The model stream ended without a result.',
    }
  );
}

/**
 * One turn of the agent loop: model → tool calls (validated, checked, run in parallel) → model … until the
 * model answers without tools. Bounded by `maxRounds` (then one tool-less wrap-up call) and by repeat
 * detection. Never throws for model or tool failures: they end up in the result.
 */
export async function runTurn(options: RunTurnOptions): Promise<TurnResult> {
  const transcript = [...options.messages];
  const produced: ProducedMessage[] = [];
  const usage: Usage = { inputTokens: 0, outputTokens: 0 };
  const callCounts = new Map<string, number>();
  /** Tools activated with use_tools: their schemas are sent for the rest of this turn. */
  const active = new Set<string>();
  const record = async (message: ChatMessage) => {
    transcript.push(message);
    produced.push({ message });
    await options.persist?.({ message });
  };
  /** What the gate asked to tell the owner about calls that ran, in order, each once. */
  const notices: string[] = [];
  const told = (result: TurnResult): TurnResult => {
    const all = [...new Set(notices)];
    if (result.notice) all.push(result.notice);
    return all.length ? { ...result, notice: all.join(' ') } : result;
  };

  let endpoint: string | undefined;
  for (let round = 1; round <= options.maxRounds; round++) {
    const result = await callModel(options, transcript, active);
    addUsage(usage, result.usage);
    endpoint = result.endpoint ?? endpoint;
    const failed = result.stopReason === 'error' || result.stopReason === 'aborted';
    if (failed || result.toolCalls.length === 0) {
      if (result.text) await record({ role: 'assistant', content: result.text });
      return told({
        reply: result.text,
        produced,
        usage,
        stopReason: result.stopReason,
        rounds: round,
        ...(endpoint ? { endpoint } : {}),
        ...(result.errorMessage ? { errorMessage: result.errorMessage } : {}),
      });
    }
    await record({ role: 'assistant', content: result.text, toolCalls: result.toolCalls });

    const { messages: results, repeated } = await runCalls(
      options,
      result.toolCalls,
      callCounts,
      active,
      notices,
    );
    for (const item of results) {
      transcript.push(item.message);
      produced.push(item);
    }
    if (options.signal.aborted) {
      return told({ reply: '', produced, usage, stopReason: 'aborted', rounds: round });
    }
    if (repeated) {
      return wrapUp(
        options,
        transcript,
        produced,
        usage,
        round,
        `a repeating ${repeated} call was stopped`,
        active,
      ).then(told);
    }
  }
  return wrapUp(
    options,
    transcript,
    produced,
    usage,
    options.maxRounds,
    `the limit of ${options.maxRounds} tool rounds was reached`,
    active,
  ).then(told);
}

/**
 * Runs one response's tool calls, at most `maxParallelTools` at once, and returns their result messages in
 * call order. Each result is persisted the moment its call completes, so a kill leaves in the history
 * exactly the calls that ran. Calls past MAX_CALLS_PER_ROUND and repeats past `repeatLimit` are refused.
 */
async function runCalls(
  options: RunTurnOptions,
  calls: ToolCall[],
  callCounts: Map<string, number>,
  active: Set<string>,
  notices: string[],
): Promise<{ messages: ProducedMessage[]; repeated?: string }> {
  let repeated: string | undefined;
  const slots = new Semaphore(options.maxParallelTools ?? DEFAULT_PARALLEL_TOOLS);
  // Every call waiting for a slot listens to the turn's signal: up to MAX_CALLS_PER_ROUND at once is expected.
  setMaxListeners(MAX_CALLS_PER_ROUND * 2 + 16, options.signal);
  const refused = (call: ToolCall, content: string) => ({
    call,
    result: { content, isError: true } satisfies ToolResult,
  });
  const outcome = async (call: ToolCall, index: number): Promise<{ call: ToolCall; result: ToolResult }> => {
    if (index >= MAX_CALLS_PER_ROUND) {
      return refused(
        call,
        `Not run: one response may make at most ${MAX_CALLS_PER_ROUND} tool calls (this one made ${calls.length}). Make the rest in your next step.`,
      );
    }
    const key = `${call.name}\u0000${call.arguments.trim()}`;
    const count = (callCounts.get(key) ?? 0) + 1;
    callCounts.set(key, count);
    if (count > options.repeatLimit) {
      repeated = call.name;
      return refused(
        call,
        `Stopped: this exact ${call.name} call was already made ${count - 1} times in this turn.`,
      );
    }
    if (call.name === USE_TOOLS) return activate(options, call, active);
    return slots.run(
      () => runCall(options, call, notices),
      options.signal,
      refused(call, 'The call was cancelled.'),
    );
  };
  const messages = await Promise.all(
    calls.map(async (call, index) => {
      const { result } = await outcome(call, index);
      const item = toolMessage(call, result, options.maxToolResultChars);
      await options.persist?.(item);
      return item;
    }),
  );
  return repeated ? { messages, repeated } : { messages };
}

/** A tool result as the model gets it (capped) and the full output as details when it was cut. */
function toolMessage(call: ToolCall, result: ToolResult, maxChars: number): ProducedMessage {
  const capped = capText(result.content, maxChars);
  const details = result.details ?? (capped === result.content ? undefined : result.content);
  const message: ChatMessage = {
    role: 'tool',
    toolCallId: call.id,
    toolName: call.name,
    content: capped,
    ...(result.isError ? { isError: true } : {}),
  };
  return details === undefined ? { message } : { message, details };
}

async function runCall(options: RunTurnOptions, call: ToolCall, notices: string[]) {
  const { registry, toolContext, signal, beforeToolCall, onEvent } = options;
  const tool = registry.get(call.name);
  let hintArgs: Record<string, unknown> | undefined;
  // The hint parses the arguments only when validation will (an oversized text is refused unparsed).
  if (
    tool &&
    call.arguments.length <= MAX_ARGUMENT_CHARS &&
    !nestsDeeperThan(call.arguments, MAX_ARGUMENT_DEPTH)
  ) {
    try {
      hintArgs = JSON.parse(call.arguments || '{}') as Record<string, unknown>;
    } catch {
      hintArgs = undefined;
    }
  }
  onEvent?.({ type: 'tool-call-start', call, hint: `calling ${describeCall(call.name, hintArgs)}` });
  const outcome = await registry.invoke(call, toolContext, signal, beforeToolCall, options.afterToolCall);
  onEvent?.({ type: 'tool-call-end', call, result: outcome.result });
  if (outcome.notice) notices.push(outcome.notice);
  return { call, result: outcome.result };
}

/** `use_tools`: adds on-demand tools to the turn's active set; unknown names come back as an error. */
function activate(options: RunTurnOptions, call: ToolCall, active: Set<string>) {
  const available = new Set(options.registry.catalog().map((entry) => entry.name));
  let names: unknown;
  try {
    names = (JSON.parse(call.arguments || '{}') as { names?: unknown }).names;
  } catch {
    names = undefined;
  }
  if (!Array.isArray(names) || names.length === 0 || !names.every((name) => typeof name === 'string')) {
    return {
      call,
      result: { content: 'use_tools needs {"names": ["tool_name", …]}.', isError: true } satisfies ToolResult,
    };
  }
  const unknown = names.filter((name) => !available.has(name) && !options.registry.get(name));
  for (const name of names) if (available.has(name)) active.add(name);
  const known = names.filter((name) => !unknown.includes(name));
  const content = unknown.length
    ? `Unknown tools: ${unknown.join(', ')}. Available: ${[...available].join(', ') || 'none'}.${known.length ? ` Activated: ${known.join(', ')}.` : ''}`
    : `Activated: ${known.join(', ')}. Their schemas are available from your next step.`;
  options.onEvent?.({ type: 'tool-call-start', call, hint: `activating ${names.join(', ')}` });
  const result: ToolResult = unknown.length ? { content, isError: true } : { content };
  options.onEvent?.({ type: 'tool-call-end', call, result });
  return { call, result };
}

async function wrapUp(
  options: RunTurnOptions,
  transcript: ChatMessage[],
  produced: ProducedMessage[],
  usage: Usage,
  rounds: number,
  reason: string,
  active: ReadonlySet<string>,
): Promise<TurnResult> {
  const note = `Tool use has ended for this turn because ${reason}. Do not call tools. Reply to the user now: say what you did, what you found and what is still open.`;
  const result = await callModel(options, transcript, active, {
    system: [...options.system, { text: note }],
    toolChoice: 'none',
  });
  addUsage(usage, result.usage);
  if (result.text) {
    const message: ChatMessage = { role: 'assistant', content: result.text };
    transcript.push(message);
    produced.push({ message });
    await options.persist?.({ message });
  }
  const notice = `Wren stopped using tools because ${reason}.`;
  return {
    reply: result.text,
    produced,
    usage,
    stopReason: result.stopReason === 'tool_calls' ? 'stop' : result.stopReason,
    rounds: rounds + 1,
    ...(result.endpoint ? { endpoint: result.endpoint } : {}),
    notice,
    ...(result.errorMessage ? { errorMessage: result.errorMessage } : {}),
  };
}
