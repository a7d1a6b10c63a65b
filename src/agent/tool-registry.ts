import type { ToolCall, ToolDefinition } from '../llm/types.js';
import type { Tool, ToolContext, ToolResult } from './tool.js';
import { validateArguments } from './validate-arguments.js';

/** A tool call after it ran: what the model gets (`result`) plus what the UI may show. */
export interface ToolOutcome {
  result: ToolResult;
  /** Parsed arguments, when they were valid. */
  args?: Record<string, unknown>;
}

/**
 * Decides whether a validated call may run. Returning a reason denies the call; the reason is reported
 * to the model as the tool's error result. The gate plugs in here.
 */
export type BeforeToolCall = (
  tool: Tool,
  args: Record<string, unknown>,
  ctx: ToolContext,
  signal: AbortSignal,
) => Promise<{ allow: true } | { allow: false; reason: string }>;

/** The tools Wren can offer a model, by name. */
export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();

  register(tool: Tool): this {
    if (this.tools.has(tool.name)) throw new Error(`tool ${tool.name} is registered twice`);
    this.tools.set(tool.name, tool);
    return this;
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** Definitions for the request, in registration order (stable, so provider caches hit). */
  definitions(): ToolDefinition[] {
    return [...this.tools.values()].map(({ name, description, parameters }) => ({
      name,
      description,
      parameters,
    }));
  }

  /**
   * Runs one call end to end: lookup, argument validation, the optional `beforeToolCall` check, execution.
   * Never throws: every failure (unknown tool, bad arguments, a denial, a thrown error, an abort) becomes an
   * error result the model can read.
   */
  async invoke(
    call: ToolCall,
    ctx: ToolContext,
    signal: AbortSignal,
    beforeToolCall?: BeforeToolCall,
  ): Promise<ToolOutcome> {
    const tool = this.tools.get(call.name);
    if (!tool) {
      const known = this.names().join(', ') || 'none';
      return {
        result: { content: `Unknown tool "${call.name}". Available tools: ${known}.`, isError: true },
      };
    }
    const check = validateArguments(tool.name, call.arguments, tool.parameters);
    if (!check.ok) return { result: { content: check.error, isError: true } };
    try {
      if (beforeToolCall) {
        const verdict = await beforeToolCall(tool, check.args, ctx, signal);
        if (!verdict.allow) {
          return { args: check.args, result: { content: `Not allowed: ${verdict.reason}`, isError: true } };
        }
      }
      signal.throwIfAborted();
      const result = await tool.execute(check.args, ctx, signal);
      return { args: check.args, result };
    } catch (error) {
      const message = signal.aborted
        ? 'The call was cancelled.'
        : error instanceof Error
          ? error.message
          : String(error);
      return { args: check.args, result: { content: `${tool.name} failed: ${message}`, isError: true } };
    }
  }
}
