/** Reading what a client sent to the fake LLM server, per wire protocol. */
import type { FakeProtocol } from './fake-llm-wire.js';

/** One model call the fake server received. */
export interface RecordedRequest {
  protocol: FakeProtocol;
  method: string;
  /** Path with query string, e.g. `/v1beta/models/gemini-x:streamGenerateContent?alt=sse`. */
  path: string;
  /** Lower-cased header names, as Node delivers them. */
  headers: Record<string, string>;
  /** The parsed JSON body (`undefined` when it was not JSON). */
  // biome-ignore lint/suspicious/noExplicitAny: tests dig into wire bodies freely.
  body: any;
  /** From the body (OpenAI, Anthropic) or the path (Gemini). */
  model: string;
  stream: boolean;
  /** The key the client presented (Bearer token, `x-api-key` or `x-goog-api-key`), if any. */
  apiKey?: string;
  /** Text of the last user message that has text (tool results are not user text). */
  lastUserText: string;
  /** Names of the tools offered to the model, in order. */
  toolNames: string[];
  /** The system prompt as one string (blocks joined with blank lines). */
  system: string;
}

/** Extracts the recorded fields from a parsed body. Tolerates any shape; never throws. */
export function describeRequest(
  protocol: FakeProtocol,
  body: unknown,
  pathModel: string | undefined,
): Pick<RecordedRequest, 'model' | 'lastUserText' | 'toolNames' | 'system'> {
  const tools = list(get(body, 'tools'));
  if (protocol === 'gemini') {
    const contents = list(get(body, 'contents'));
    return {
      model: pathModel ?? '',
      lastUserText: lastText(contents.filter((c) => get(c, 'role') === 'user').map((c) => get(c, 'parts'))),
      toolNames: tools
        .flatMap((t) => list(get(t, 'functionDeclarations')))
        .map((d) => String(get(d, 'name'))),
      system: textOf(get(get(body, 'systemInstruction'), 'parts'), '\n\n'),
    };
  }
  const messages = list(get(body, 'messages'));
  const role = (m: unknown) => get(m, 'role');
  const system =
    protocol === 'openai'
      ? messages
          .filter((m) => role(m) === 'system' || role(m) === 'developer')
          .map((m) => textOf(get(m, 'content')))
          .join('\n\n')
      : textOf(get(body, 'system'), '\n\n');
  return {
    model: String(get(body, 'model') ?? ''),
    lastUserText: lastText(messages.filter((m) => role(m) === 'user').map((m) => get(m, 'content'))),
    toolNames: tools.map((t) => String(get(get(t, 'function'), 'name') ?? get(t, 'name'))),
    system,
  };
}

/** The key presented in the usual places of each protocol. */
export function presentedKey(headers: Record<string, string>, url: URL): string | undefined {
  const bearer = headers.authorization?.replace(/^Bearer\s+/i, '');
  return (
    bearer || headers['x-api-key'] || headers['x-goog-api-key'] || url.searchParams.get('key') || undefined
  );
}

/** The text of the last content that has any text. */
function lastText(contents: unknown[]): string {
  for (let i = contents.length - 1; i >= 0; i--) {
    const text = textOf(contents[i]);
    if (text) return text;
  }
  return '';
}

/** Text of a string, or of the `text` parts of an array of parts/blocks. */
function textOf(content: unknown, separator = ''): string {
  if (typeof content === 'string') return content;
  return list(content)
    .filter(
      (part) =>
        typeof get(part, 'text') === 'string' && [undefined, 'text'].includes(get(part, 'type') as string),
    )
    .map((part) => get(part, 'text') as string)
    .join(separator);
}

function get(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
