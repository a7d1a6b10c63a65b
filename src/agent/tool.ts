import type { JsonSchema } from '../llm/types.js';

/** How much harm a tool call could do; the gate (its own module) maps risk × mode to allow/ask. */
export type Risk = 'safe' | 'moderate' | 'sensitive' | 'dangerous';

/** What the core hands a tool when it runs. */
export interface ToolContext {
  sessionId: string;
  channel: string;
  chatId: string;
  /** Absolute real path of the workspace folder. */
  workspace: string;
  /** Progress for the UI (e.g. "downloading 3/10"); never sent to the model. */
  progress(text: string): void;
}

export interface ToolResult {
  /** What the model sees. */
  content: string;
  /** What the UI and logs see (full output, structured data). */
  details?: unknown;
  isError?: boolean;
}

/**
 * The tool contract. `execute` receives arguments already validated against `parameters`.
 * A thrown error is caught by the loop and returned to the model as an error result; it never ends the turn.
 */
export interface Tool {
  name: string;
  description: string;
  parameters: JsonSchema;
  risk: Risk;
  execute(args: Record<string, unknown>, ctx: ToolContext, signal: AbortSignal): Promise<ToolResult>;
}

/** A tool failure whose message is meant for the model (and the user) verbatim. */
export class ToolError extends Error {
  override name = 'ToolError';
}
