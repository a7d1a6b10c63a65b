/**
 * Wire formats of the fake LLM server: how one scripted step looks as an OpenAI chat-completions,
 * Anthropic messages or Gemini generateContent response (JSON and SSE). Pure functions; the server writes.
 * Gemini's details live in fake-gemini-wire.ts.
 */
import {
  type GeminiFraming,
  geminiError,
  geminiJson,
  geminiStream,
  geminiStreamError,
} from './fake-gemini-wire.js';
import type { FakeStep } from './fake-llm-server.js';

export type FakeProtocol = 'openai' | 'anthropic' | 'gemini';
export type FakeStopReason = 'stop' | 'tool_calls' | 'length';

export interface FakeToolCall {
  name: string;
  /** Raw JSON text or an object (serialised for OpenAI/Anthropic, sent as `args` for Gemini). */
  arguments: string | Record<string, unknown>;
  /** Defaults to a generated `call_N` / `toolu_N` (Gemini sends no ids; the client makes them up). */
  id?: string;
}

export interface FakeUsage {
  input: number;
  output: number;
  /** Reported as OpenAI `cached_tokens`, Anthropic `cache_read_input_tokens`, Gemini `cachedContentTokenCount`. */
  cachedInput?: number;
  /** Gemini only: `thoughtsTokenCount`, billed as output on top of `output` (`candidatesTokenCount`). */
  thoughts?: number;
}

/** A step after defaults are applied: what the wire renderers need. */
export interface RenderedStep {
  chunks: string[];
  toolCalls: Array<{ id: string; name: string; arguments: string; args: Record<string, unknown> }>;
  usage: FakeUsage;
  stopReason: FakeStopReason;
  /** The protocol's own finish reason (`content_filter`, `refusal`, `SAFETY` …), overriding `stopReason`'s. */
  finishReason?: string;
  /** Gemini only: the prompt is blocked (`promptFeedback.blockReason`) and no candidate is sent. */
  blockReason?: string;
  model: string;
  id: string;
}

/** Applies a step's defaults: split text, call ids, usage estimated from the lengths, the stop reason. */
export function renderStep(options: {
  protocol: FakeProtocol;
  model: string;
  step: FakeStep;
  /** Number of the answer, for unique ids. */
  serial: number;
  requestLength: number;
}): RenderedStep {
  const { protocol, step, serial } = options;
  const prefix = protocol === 'anthropic' ? 'toolu' : 'call';
  const toolCalls = (step.toolCalls ?? []).map((call, index) => {
    const args = typeof call.arguments === 'string' ? parseObject(call.arguments) : call.arguments;
    const text = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    return { id: call.id ?? `${prefix}_${serial}_${index}`, name: call.name, arguments: text, args };
  });
  const chunks = step.chunks ?? splitText(step.text ?? '');
  const outputLength =
    chunks.join('').length + toolCalls.reduce((sum, call) => sum + call.arguments.length, 0);
  return {
    chunks,
    toolCalls,
    ...(step.finishReason !== undefined ? { finishReason: step.finishReason } : {}),
    ...(step.blockReason !== undefined ? { blockReason: step.blockReason } : {}),
    usage: step.usage ?? {
      input: Math.ceil(options.requestLength / 4),
      output: Math.max(1, Math.ceil(outputLength / 4)),
    },
    stopReason: step.stopReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    model: options.model || 'fake-model',
    id: `${{ openai: 'chatcmpl', anthropic: 'msg', gemini: 'resp' }[protocol]}_${serial}`,
  };
}

/** Splits text into several chunks (about 12 characters, at most ~24 chunks), preserving every character. */
export function splitText(text: string): string[] {
  if (text.length === 0) return [];
  const size = Math.max(12, Math.ceil(text.length / 24));
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
  return chunks;
}

/** One SSE frame (`data: …\n\n`, Anthropic with an `event:` line); `content` marks text/tool-argument frames. */
export interface StreamFrame {
  data: string;
  content: boolean;
}

/**
 * The frames of a streamed response: SSE, or for Gemini without `?alt=sse` a JSON array. `includeUsage`
 * matters for OpenAI only (`stream_options.include_usage`).
 */
export function renderStream(
  protocol: FakeProtocol,
  step: RenderedStep,
  options: { includeUsage: boolean; geminiFraming: GeminiFraming },
): StreamFrame[] {
  if (protocol === 'openai') return openaiStream(step, options.includeUsage);
  if (protocol === 'anthropic') return anthropicStream(step);
  return geminiStream(step, options.geminiFraming);
}

/** An error event inside a stream that already answered 200, in the protocol's shape. */
export function renderStreamError(protocol: FakeProtocol, status: number, message: string): StreamFrame {
  if (protocol === 'gemini') return geminiStreamError(status, message);
  if (protocol === 'anthropic') {
    const error = { type: 'error', error: { type: anthropicErrorType(status), message } };
    return { data: `event: error\n${sse(error)}`, content: false };
  }
  const type = status >= 500 ? 'server_error' : 'invalid_request_error';
  return { data: sse({ error: { message, type, param: null, code: null } }), content: false };
}

/** The non-streaming JSON body. */
export function renderJson(protocol: FakeProtocol, step: RenderedStep): unknown {
  if (protocol === 'openai') {
    const message: Record<string, unknown> = { role: 'assistant', content: step.chunks.join('') || null };
    if (step.toolCalls.length > 0) message.tool_calls = step.toolCalls.map(openaiToolCall);
    return {
      id: step.id,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: step.model,
      choices: [{ index: 0, message, finish_reason: step.finishReason ?? step.stopReason }],
      usage: openaiUsage(step.usage),
    };
  }
  if (protocol === 'anthropic') {
    const content: unknown[] = [];
    if (step.chunks.length > 0) content.push({ type: 'text', text: step.chunks.join('') });
    for (const call of step.toolCalls)
      content.push({ type: 'tool_use', id: call.id, name: call.name, input: call.args });
    return {
      id: step.id,
      type: 'message',
      role: 'assistant',
      model: step.model,
      content,
      stop_reason: step.finishReason ?? anthropicStopReason(step.stopReason),
      stop_sequence: null,
      usage: anthropicUsage(step.usage),
    };
  }
  return geminiJson(step);
}

/** A protocol-shaped error body for `status`, with `message`; `retryDelay` is Gemini's `RetryInfo`. */
export function renderError(
  protocol: FakeProtocol,
  error: { status: number; message: string; retryDelay?: string },
): unknown {
  const { status, message } = error;
  if (protocol === 'openai') {
    return {
      error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', code: status },
    };
  }
  if (protocol === 'anthropic')
    return { type: 'error', error: { type: anthropicErrorType(status), message } };
  return geminiError(error);
}

function openaiStream(step: RenderedStep, includeUsage: boolean): StreamFrame[] {
  const base = {
    id: step.id,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: step.model,
  };
  const frame = (delta: unknown, finish: string | null = null, content = false): StreamFrame => ({
    data: sse({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] }),
    content,
  });
  const frames = [frame({ role: 'assistant', content: '' })];
  for (const chunk of step.chunks) frames.push(frame({ content: chunk }, null, true));
  step.toolCalls.forEach((call, index) => {
    const head = { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } };
    frames.push(frame({ tool_calls: [head] }));
    for (const piece of halves(call.arguments))
      frames.push(frame({ tool_calls: [{ index, function: { arguments: piece } }] }, null, true));
  });
  frames.push(frame({}, step.finishReason ?? step.stopReason));
  if (includeUsage)
    frames.push({ data: sse({ ...base, choices: [], usage: openaiUsage(step.usage) }), content: false });
  frames.push({ data: 'data: [DONE]\n\n', content: false });
  return frames;
}

function anthropicStream(step: RenderedStep): StreamFrame[] {
  const event = (type: string, data: Record<string, unknown>): StreamFrame => ({
    data: `event: ${type}\n${sse({ type, ...data })}`,
    content: type === 'content_block_delta',
  });
  const usage = anthropicUsage(step.usage);
  const message = { id: step.id, type: 'message', role: 'assistant', model: step.model, content: [] };
  const frames = [
    event('message_start', {
      message: { ...message, stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
    }),
  ];
  let index = 0;
  if (step.chunks.length > 0) {
    frames.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
    frames.push(event('ping', {}));
    for (const text of step.chunks) {
      frames.push(event('content_block_delta', { index, delta: { type: 'text_delta', text } }));
    }
    frames.push(event('content_block_stop', { index }));
    index++;
  }
  for (const call of step.toolCalls) {
    const block = { type: 'tool_use', id: call.id, name: call.name, input: {} };
    frames.push(event('content_block_start', { index, content_block: block }));
    for (const partial_json of halves(call.arguments)) {
      frames.push(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } }));
    }
    frames.push(event('content_block_stop', { index }));
    index++;
  }
  frames.push(
    event('message_delta', {
      delta: { stop_reason: step.finishReason ?? anthropicStopReason(step.stopReason), stop_sequence: null },
      usage: { output_tokens: step.usage.output },
    }),
  );
  frames.push(event('message_stop', {}));
  return frames;
}

function openaiToolCall(call: RenderedStep['toolCalls'][number]) {
  return { id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } };
}

function openaiUsage(usage: FakeUsage) {
  return {
    prompt_tokens: usage.input,
    completion_tokens: usage.output,
    total_tokens: usage.input + usage.output,
    ...(usage.cachedInput !== undefined
      ? { prompt_tokens_details: { cached_tokens: usage.cachedInput } }
      : {}),
  };
}

function anthropicUsage(usage: FakeUsage) {
  return {
    input_tokens: usage.input,
    output_tokens: usage.output,
    ...(usage.cachedInput !== undefined ? { cache_read_input_tokens: usage.cachedInput } : {}),
  };
}

function anthropicStopReason(reason: FakeStopReason): string {
  return { stop: 'end_turn', tool_calls: 'tool_use', length: 'max_tokens' }[reason];
}

function anthropicErrorType(status: number): string {
  const types: Record<number, string> = {
    400: 'invalid_request_error',
    401: 'authentication_error',
    403: 'permission_error',
    404: 'not_found_error',
    413: 'request_too_large',
    429: 'rate_limit_error',
    529: 'overloaded_error',
  };
  return types[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

/** Splits a string in two non-empty halves (or returns it whole when short) to exercise delta assembly. */
function halves(text: string): string[] {
  if (text.length < 2) return [text];
  const middle = Math.floor(text.length / 2);
  return [text.slice(0, middle), text.slice(middle)];
}

function sse(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
