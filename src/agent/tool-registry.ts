import type { ToolCall, ToolDefinition } from '../llm/types.js';
import type { Tool, ToolContext, ToolResult } from './tool.js';
import {
  catalogueLines,
  definitionOf,
  GROUPS_HEADING,
  summaryOf,
  USE_TOOLS,
  useToolsDefinition,
} from './tool-catalog.js';

import { validateArguments } from './validate-arguments.js';

/** A tool call after it ran: what the model gets (`result`) plus what the UI may show. */
export interface ToolOutcome {
  result: ToolResult;
  /** What the gate asked to tell the owner about this call, when it ran (see BeforeToolCall). */
  notice?: string;
  /** Parsed arguments, when they were valid. */
  args?: Record<string, unknown>;
}

/**
 * Decides whether a validated call may run. Returning a reason denies the call; the reason is reported
 * to the model as the tool's error result. An allowed call may carry a `notice` for the owner: it is added
 * to the turn's answer when the call ran without error. The gate plugs in here.
 */
export type BeforeToolCall = (
  tool: Tool,
  args: Record<string, unknown>,
  ctx: ToolContext,
  signal: AbortSignal,
) => Promise<{ allow: true; notice?: string } | { allow: false; reason: string }>;

/** Runs after every call that reached `execute` (taint tracking, audit). Must not throw. */
export type AfterToolCall = (
  tool: Tool,
  args: Record<string, unknown>,
  result: ToolResult,
  ctx: ToolContext,
) => void;

export { GROUPS_HEADING, USE_TOOLS } from './tool-catalog.js';

interface Group {
  /** Shown after the group's label; empty for none. */
  summary: string;
  members: string[];
}

const GROUP_SUFFIX = '__*';

/** The tools Wren can offer a model, by name. Tools may come and go at run time (MCP servers). */
export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();
  private readonly groups = new Map<string, Group>();

  register(tool: Tool): this {
    if (tool.name === USE_TOOLS) throw new Error(`${USE_TOOLS} is reserved`);
    if (this.tools.has(tool.name)) throw new Error(`tool ${tool.name} is registered twice`);
    this.tools.set(tool.name, tool);
    return this;
  }

  /** Registers `tool`, or swaps it in at the same position when one of that name exists (config reload). */
  replace(tool: Tool): this {
    if (tool.name === USE_TOOLS) throw new Error(`${USE_TOOLS} is reserved`);
    this.tools.set(tool.name, tool);
    return this;
  }

  /** Removes a tool (an MCP server went away); calls already running finish. */
  unregister(name: string): boolean {
    return this.tools.delete(name);
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** Every tool's definition, in registration order. */
  definitions(): ToolDefinition[] {
    return [...this.tools.values()].map(definitionOf);
  }

  /**
   * Declares (or replaces) a group named `<label>__*` — an MCP server's tools — listed in the catalogue as
   * `label (summary)` on one shared line; activating the group activates every member.
   */
  setGroup(name: string, summary: string, members: string[]): void {
    this.groups.set(name, { summary, members: [...members] });
  }

  deleteGroup(name: string): void {
    this.groups.delete(name);
  }

  /** Members of a group (empty for an unknown group). */
  groupMembers(name: string): string[] {
    return [...(this.groups.get(name)?.members ?? [])];
  }

  /** On-demand tools by name with a one-line summary, plus one entry per group (what `use_tools` accepts). */
  catalog(): Array<{ name: string; summary: string }> {
    const single = [...this.tools.values()]
      .filter((tool) => !tool.core)
      .map((tool) => ({ name: tool.name, summary: summaryOf(tool.description) }));
    return [...single, ...this.liveGroups().map(([name, group]) => ({ name, summary: group.summary }))];
  }

  /**
   * The definitions for one request: every core tool plus the active ones (a group activates its members),
   * in registration order (stable, so provider caches hit), then `use_tools` listing what is left: one line
   * per area (its tools' names), a line per tool without an area, groups together on one line.
   */
  requestDefinitions(active: ReadonlySet<string>): ToolDefinition[] {
    const groups = this.liveGroups();
    const expanded = new Set(active);
    for (const [name, group] of groups)
      if (active.has(name)) for (const member of group.members) expanded.add(member);
    const grouped = new Set(groups.flatMap(([, group]) => group.members));
    const definitions: ToolDefinition[] = [];
    const listed: Tool[] = [];
    for (const tool of this.tools.values()) {
      if (tool.core || expanded.has(tool.name)) definitions.push(definitionOf(tool));
      else if (!grouped.has(tool.name)) listed.push(tool);
    }
    const rest = catalogueLines(listed);
    const pending = groups
      .filter(([name, group]) => !active.has(name) && group.members.some((member) => !expanded.has(member)))
      .map(([name, group]) => {
        const label = name.endsWith(GROUP_SUFFIX) ? name.slice(0, -GROUP_SUFFIX.length) : name;
        return group.summary ? `${label} (${group.summary})` : label;
      });
    if (pending.length > 0) rest.push(`- ${GROUPS_HEADING}: ${pending.join(', ')}`);
    if (rest.length > 0) definitions.push(useToolsDefinition(rest));
    return definitions;
  }

  private liveGroups(): Array<[string, Group]> {
    return [...this.groups.entries()]
      .map(([name, group]): [string, Group] => [
        name,
        {
          ...group,
          members: group.members.filter((member) => this.tools.get(member) && !this.tools.get(member)!.core),
        },
      ])
      .filter(([, group]) => group.members.length > 0);
  }

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
      let notice: string | undefined;
      if (beforeToolCall) {
        const verdict = await beforeToolCall(tool, check.args, ctx, signal);
        if (!verdict.allow) {
          return { args: check.args, result: { content: `Not allowed: ${verdict.reason}`, isError: true } };
        }
        notice = verdict.notice;
      }
      signal.throwIfAborted();
      const result = await tool.execute(check.args, ctx, signal);
      afterToolCall?.(tool, check.args, result, ctx);
      return notice && !result.isError ? { args: check.args, result, notice } : { args: check.args, result };
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
