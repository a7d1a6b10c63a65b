import type { ToolCall, ToolDefinition } from '../llm/types.js';
import type { Tool, ToolContext, ToolResult } from './tool.js';

function useToolsDefinition(available: Array<{ name: string; summary: string }>): ToolDefinition {
  const list = available.map((entry) => `- ${entry.name}: ${entry.summary}`).join('\n');
  return {
    name: USE_TOOLS,
    description: `Activate more tools for the rest of this turn; their full schemas arrive with the next step. Available:\n${list}`,
    parameters: {
      type: 'object',
      properties: {
        names: {
          type: 'array',
          items: { type: 'string' },
          minItems: 1,
          description: 'Tool names to activate',
        },
      },
      required: ['names'],
      additionalProperties: false,
    },
  };
}

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

/** Runs after every call that reached `execute` (taint tracking, audit). Must not throw. */
export type AfterToolCall = (
  tool: Tool,
  args: Record<string, unknown>,
  result: ToolResult,
  ctx: ToolContext,
) => void;

/** The name of the built-in activation tool the loop handles itself. */
export const USE_TOOLS = 'use_tools';

/** The tools Wren can offer a model, by name. Tools may come and go at run time (MCP servers). */
export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();

  register(tool: Tool): this {
    if (tool.name === USE_TOOLS) throw new Error(`${USE_TOOLS} is reserved`);
    if (this.tools.has(tool.name)) throw new Error(`tool ${tool.name} is registered twice`);
    this.tools.set(tool.name, tool);
    return this;
  }

  /** Removes a tool (an MCP server went away); calls already running finish. */
  unregister(name: string): boolean {
    return this.tools.delete(name);
  }

  /** Tools sent only on demand, as `name: one line` (the first sentence of the description). */
  catalog(): Array<{ name: string; summary: string }> {
    return [...this.tools.values()]
      .filter((tool) => !tool.core)
      .map((tool) => ({
        name: tool.name,
        summary: tool.description.split(/(?<=\.)\s|\n/)[0]!.slice(0, 120),
      }));
  }

  /**
   * The definitions for one request: every core tool plus the `active` ones, in registration order (stable,
   * so provider caches hit), then `use_tools` when anything is left to activate.
   */
  requestDefinitions(active: ReadonlySet<string>): ToolDefinition[] {
    const chosen = [...this.tools.values()].filter((tool) => tool.core || active.has(tool.name));
    const definitions = chosen.map(({ name, description, parameters }) => ({
      name,
      description,
      parameters,
    }));
    const rest = this.catalog().filter((entry) => !active.has(entry.name));
    if (rest.length > 0) definitions.push(useToolsDefinition(rest));
    return definitions;
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
    afterToolCall?: AfterToolCall,
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
      afterToolCall?.(tool, check.args, result, ctx);
      return { args: check.args, result };
    } catch (error) {
      const message = signal.aborted
        ? 'The call was cancelled.'
        : error instanceof Error
          ? error.message
          : String(error);
      const result: ToolResult = { content: `${tool.name} failed: ${message}`, isError: true };
      // The gate redacts secrets and records taint from failures too (an error can echo a secret).
      afterToolCall?.(tool, check.args, result, ctx);
      return { args: check.args, result };
    }
  }
}
