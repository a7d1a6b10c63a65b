import { ToolRegistry, USE_TOOLS } from '../agent/tool-registry.js';
import type { ToolDefinition } from '../llm/types.js';

interface Group {
  /** Shown after the group's label; empty for none. */
  summary: string;
  members: string[];
}

/** The group name convention: `<label>__*`. */
const SUFFIX = '__*';

/** Heading of the one catalogue line that lists every group. */
export const GROUPS_HEADING = 'MCP servers (activate all tools of one as NAME__*)';

/**
 * A {@link ToolRegistry} that lists on-demand tools in groups: every group (an MCP server's tools) is one
 * entry of a single catalogue line — `- MCP servers (…): github (issues and PRs), memory, time` — instead of
 * one line per tool, so ten servers cost the "hi" prompt a few dozen tokens. `use_tools` accepts a group name
 * (`memory__*`, activating every member) or single tool names. Tools outside groups are listed as in the base
 * registry.
 */
export class GroupedToolRegistry extends ToolRegistry {
  private readonly groups = new Map<string, Group>();

  /**
   * Declares (or replaces) a group named `<label>__*` (listed as `label (summary)`, or `label` when the summary
   * is empty). Members must be registered; unregistered members are ignored.
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

  private liveGroups(): Array<[string, Group]> {
    return [...this.groups.entries()]
      .map(([name, group]): [string, Group] => [
        name,
        { ...group, members: group.members.filter((member) => this.get(member) && !this.get(member)!.core) },
      ])
      .filter(([, group]) => group.members.length > 0);
  }

  /** Every on-demand tool by name (as activation needs) plus one entry per group. */
  override catalog(): Array<{ name: string; summary: string }> {
    return [
      ...super.catalog(),
      ...this.liveGroups().map(([name, group]) => ({ name, summary: group.summary })),
    ];
  }

  /**
   * Core tools plus the active ones (an active group name activates its members), then `use_tools` listing
   * ungrouped on-demand tools one per line and each group in one line, while anything is left to activate.
   */
  override requestDefinitions(active: ReadonlySet<string>): ToolDefinition[] {
    const groups = this.liveGroups();
    const expanded = new Set(active);
    for (const [name, group] of groups)
      if (active.has(name)) for (const member of group.members) expanded.add(member);
    const grouped = new Set(groups.flatMap(([, group]) => group.members));
    const definitions: ToolDefinition[] = [];
    for (const name of this.names()) {
      const tool = this.get(name)!;
      if (tool.core || expanded.has(name)) {
        definitions.push({ name, description: tool.description, parameters: tool.parameters });
      }
    }
    const rest = super
      .catalog()
      .filter((entry) => !grouped.has(entry.name) && !expanded.has(entry.name))
      .map((entry) => `- ${entry.name}: ${entry.summary}`);
    const pending = groups
      .filter(([name, group]) => !active.has(name) && group.members.some((member) => !expanded.has(member)))
      .map(([name, group]) => {
        const label = name.endsWith(SUFFIX) ? name.slice(0, -SUFFIX.length) : name;
        return group.summary ? `${label} (${group.summary})` : label;
      });
    if (pending.length > 0) rest.push(`- ${GROUPS_HEADING}: ${pending.join(', ')}`);
    if (rest.length > 0) definitions.push(useToolsDefinition(rest.join('\n')));
    return definitions;
  }
}

/** The same `use_tools` definition the base registry sends, with the catalogue text given. */
function useToolsDefinition(list: string): ToolDefinition {
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
