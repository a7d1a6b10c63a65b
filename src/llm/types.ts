/**
 * The model contract. Everything above `src/llm` talks to models only through these types, so a wire
 * protocol (OpenAI chat-completions, Anthropic messages, Gemini) is an implementation detail of an adapter.
 */

/** A JSON Schema object describing a tool's arguments. */
export type JsonSchema = Record<string, unknown>;

export interface TextPart {
  type: 'text';
  text: string;
}

/** An image in user content; `data` is base64 without a data: prefix. */
export interface ImagePart {
  type: 'image';
  data: string;
  mediaType: string;
}

export interface ToolCall {
  /** Provider-issued id, echoed back in the matching tool result. */
  id: string;
  name: string;
  /** The raw argument text as the model produced it; parsing and validation are the caller's job. */
  arguments: string;
}

export type ChatMessage =
  | { role: 'user'; content: string | Array<TextPart | ImagePart> }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; toolName: string; content: string; isError?: boolean };

export interface ToolDefinition {
  name: string;
  description: string;
  parameters: JsonSchema;
}

export interface ModelRequest {
  /**
   * System prompt blocks in order. Adapters that support prompt caching (Anthropic) put a cache breakpoint
   * after the last block marked `cache: true`, so keep stable blocks first and byte-identical across turns.
   */
  system: Array<{ text: string; cache?: boolean }>;
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  /** Upper bound on output tokens; the endpoint's own limit applies when omitted. */
  maxOutputTokens?: number;
  temperature?: number;
  /** `none` forbids tool calls for this request while still declaring the tools (history may contain calls). */
  toolChoice?: 'auto' | 'none';
  /** Route by tag (for example `small` for background jobs); `default` when omitted. */
  tag?: string;
}

export type StopReason = 'stop' | 'tool_calls' | 'length' | 'error' | 'aborted';

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens served from the provider's prompt cache, when it reports them. */
  cachedInputTokens?: number;
}

/** The final assistant message of one model call. */
export interface ModelResult {
  text: string;
  toolCalls: ToolCall[];
  stopReason: StopReason;
  usage: Usage;
  /** Set when stopReason is `error`: a message fit to show the user (never contains secrets). */
  errorMessage?: string;
  /** The endpoint name that produced this result. */
  endpoint?: string;
}

/**
 * Events of one model call. A stream always ends with exactly one `done` event; expected failures
 * (provider refusals, network trouble, aborts) end it with stopReason `error` or `aborted` instead of throwing.
 */
export type ModelEvent =
  | { type: 'text-delta'; text: string }
  | { type: 'tool-call'; call: ToolCall }
  | { type: 'done'; result: ModelResult };

/** Facts the context builder needs to budget a request. */
export interface ModelLimits {
  contextWindow: number;
  maxOutputTokens: number;
}

export interface ChatModel {
  stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelEvent>;
  /** Limits of the endpoint(s) a request with this tag would go to. */
  limits(tag?: string): ModelLimits;
}
