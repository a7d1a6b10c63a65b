/**
 * Gemini's wire format for the fake LLM server, as the Generative Language API (v1beta) sends it:
 * `GenerateContentResponse` chunks (SSE framed with CRLF for `?alt=sse`, a JSON array without it), a blocked
 * prompt (`promptFeedback.blockReason`, no candidates), candidates that finish with `SAFETY` and friends,
 * errors as `{error: {code, message, status, details}}` with `google.rpc.*` details, and the two ways the API
 * refuses a key. Pure functions; the server writes.
 */
import type { RenderedStep, StreamFrame } from './fake-llm-wire.js';

/** How `streamGenerateContent` frames its chunks: SSE with `?alt=sse`, else one JSON array. */
export type GeminiFraming = 'sse' | 'json-array';

/** Finish reasons with which Gemini withholds content: such a stream ends with a content-less chunk. */
const WITHHOLDING_FINISHES = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
]);

const HARM_CATEGORIES = [
  'HARM_CATEGORY_HATE_SPEECH',
  'HARM_CATEGORY_DANGEROUS_CONTENT',
  'HARM_CATEGORY_HARASSMENT',
  'HARM_CATEGORY_SEXUALLY_EXPLICIT',
];

/** The streamed chunks of one step. */
export function geminiStream(step: RenderedStep, framing: GeminiFraming): StreamFrame[] {
  const payloads = geminiChunks(step);
  const frames = payloads.map(({ chunk, content }, index) => ({
    data:
      framing === 'sse'
        ? `data: ${JSON.stringify(chunk)}\r\n\r\n`
        : `${index === 0 ? '[' : ',\r\n'}${JSON.stringify(chunk, null, 2)}`,
    content,
  }));
  if (framing === 'json-array') frames.push({ data: ']', content: false });
  return frames;
}

/** The `generateContent` (non-streaming) body of one step. */
export function geminiJson(step: RenderedStep): unknown {
  if (step.blockReason) return blockedPrompt(step);
  const parts = functionCallParts(step, step.chunks.length > 0 ? [{ text: step.chunks.join('') }] : []);
  return response(step, candidate(step, parts, true), 'final');
}

/** An error body in Google's shape; `retryDelay` (e.g. `7s`) adds a `google.rpc.RetryInfo` detail. */
export function geminiError(options: { status: number; message: string; retryDelay?: string }): unknown {
  const details: unknown[] = [];
  if (options.status === 429) {
    details.push(
      {
        '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
        violations: [
          {
            quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
            quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
          },
        ],
      },
      {
        '@type': 'type.googleapis.com/google.rpc.Help',
        links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/' }],
      },
    );
  }
  if (options.retryDelay !== undefined) {
    details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: options.retryDelay });
  }
  return {
    error: {
      code: options.status,
      message: options.message,
      status: grpcStatus(options.status),
      ...(details.length > 0 ? { details } : {}),
    },
  };
}

/**
 * How Gemini refuses a key: none at all is 403 PERMISSION_DENIED, a wrong one is 400 INVALID_ARGUMENT with
 * an `ErrorInfo` of reason `API_KEY_INVALID` — never 401, and the key is not echoed.
 */
export function geminiKeyRefusal(presented: string | undefined): { status: number; body: unknown } {
  if (!presented) {
    return {
      status: 403,
      body: {
        error: {
          code: 403,
          message:
            "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
          status: 'PERMISSION_DENIED',
        },
      },
    };
  }
  return {
    status: 400,
    body: {
      error: {
        code: 400,
        message: 'API key not valid. Please pass a valid API key.',
        status: 'INVALID_ARGUMENT',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'API_KEY_INVALID',
            domain: 'googleapis.com',
            metadata: { service: 'generativelanguage.googleapis.com' },
          },
        ],
      },
    },
  };
}

/** The error object Gemini puts inside an SSE stream that already answered 200. */
export function geminiStreamError(status: number, message: string): StreamFrame {
  const error = { code: status, message, status: grpcStatus(status) };
  return { data: `data: ${JSON.stringify({ error })}\r\n\r\n`, content: false };
}

/** The canonical gRPC status name Google pairs with an HTTP status. */
export function grpcStatus(status: number): string {
  const statuses: Record<number, string> = {
    400: 'INVALID_ARGUMENT',
    401: 'UNAUTHENTICATED',
    403: 'PERMISSION_DENIED',
    404: 'NOT_FOUND',
    409: 'ABORTED',
    429: 'RESOURCE_EXHAUSTED',
    499: 'CANCELLED',
    500: 'INTERNAL',
    501: 'UNIMPLEMENTED',
    503: 'UNAVAILABLE',
    504: 'DEADLINE_EXCEEDED',
  };
  return statuses[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION');
}

/** One chunk per text piece, one for all function calls, and the finish on the last (or its own) chunk. */
function geminiChunks(step: RenderedStep): Array<{ chunk: unknown; content: boolean }> {
  if (step.blockReason) return [{ chunk: blockedPrompt(step), content: false }];
  const contents: unknown[][] = step.chunks.map((text) => [{ text }]);
  if (step.toolCalls.length > 0) contents.push(functionCallParts(step, []));
  const finish = finishReason(step);
  const separateFinish = contents.length === 0 || WITHHOLDING_FINISHES.has(finish);
  const out = contents.map((parts, index) => {
    const last = !separateFinish && index === contents.length - 1;
    return { chunk: response(step, candidate(step, parts, last), last ? 'final' : 'partial'), content: true };
  });
  if (separateFinish) {
    const parts = WITHHOLDING_FINISHES.has(finish) ? undefined : [];
    out.push({
      chunk: response(step, candidate(step, parts, true), 'final'),
      content: contents.length === 0,
    });
  }
  return out;
}

function response(step: RenderedStep, only: unknown, usage: 'partial' | 'final'): Record<string, unknown> {
  return {
    candidates: [only],
    usageMetadata: usageMetadata(step, usage),
    modelVersion: step.model,
    responseId: step.id,
  };
}

/** A candidate; `parts` undefined leaves out `content` (what Gemini does when it withholds the reply). */
function candidate(step: RenderedStep, parts: unknown[] | undefined, last: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (parts) out.content = { parts, role: 'model' };
  if (last) {
    const finish = finishReason(step);
    out.finishReason = finish;
    if (finish === 'SAFETY') out.safetyRatings = safetyRatings();
  }
  out.index = 0;
  return out;
}

/** Function calls carry no id; the first carries an opaque `thoughtSignature`, as thinking models send. */
function functionCallParts(step: RenderedStep, before: unknown[]): unknown[] {
  const parts = [...before];
  step.toolCalls.forEach((call, index) => {
    const part: Record<string, unknown> = { functionCall: { name: call.name, args: call.args } };
    if (index === 0) part.thoughtSignature = Buffer.from(`fake-signature:${step.id}`).toString('base64');
    parts.push(part);
  });
  return parts;
}

function blockedPrompt(step: RenderedStep): Record<string, unknown> {
  return {
    promptFeedback: { blockReason: step.blockReason, safetyRatings: safetyRatings() },
    usageMetadata: usageMetadata(step, 'partial'),
    modelVersion: step.model,
    responseId: step.id,
  };
}

/** Ratings with dangerous content as the blocked category. */
function safetyRatings(): unknown[] {
  return HARM_CATEGORIES.map((category) =>
    category === 'HARM_CATEGORY_DANGEROUS_CONTENT'
      ? { category, probability: 'HIGH', blocked: true }
      : { category, probability: 'NEGLIGIBLE' },
  );
}

/**
 * Every chunk reports the prompt; only the final one the candidates, thoughts and cache figures. Thought
 * tokens are billed as output but not counted in `candidatesTokenCount`.
 */
function usageMetadata(step: RenderedStep, which: 'partial' | 'final'): Record<string, unknown> {
  const { input, output, thoughts, cachedInput } = step.usage;
  const prompt = {
    promptTokenCount: input,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: input }],
  };
  if (which === 'partial') return { ...prompt, totalTokenCount: input };
  return {
    ...prompt,
    candidatesTokenCount: output,
    totalTokenCount: input + output + (thoughts ?? 0),
    ...(thoughts !== undefined ? { thoughtsTokenCount: thoughts } : {}),
    ...(cachedInput !== undefined
      ? {
          cachedContentTokenCount: cachedInput,
          cacheTokensDetails: [{ modality: 'TEXT', tokenCount: cachedInput }],
        }
      : {}),
  };
}

function finishReason(step: RenderedStep): string {
  if (step.finishReason) return step.finishReason;
  return step.stopReason === 'length' ? 'MAX_TOKENS' : 'STOP';
}
