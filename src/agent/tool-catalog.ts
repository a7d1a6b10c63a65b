import type { JsonSchema, ToolDefinition } from '../llm/types.js';
import type { Tool } from './tool.js';

/** The name of the built-in activation tool the loop handles itself. */
export const USE_TOOLS = 'use_tools';

/**
 * The areas of Wren's own on-demand tools (see {@link Tool.area}), spelled once so tools of one area share
 * a line. A new feature's tools join an area here before they open a new one.
 */
export const TOOL_AREAS = {
  web: 'web',
  notes: 'notes and to-dos',
  skills: 'skills',
  subagents: 'subagents',
  messaging: 'messaging',
  scheduling: 'scheduling and goals',
  calendar: 'calendar',
} as const;

/** Heading of the one catalogue line that lists every tool group (an MCP server's tools). */
export const GROUPS_HEADING = 'MCP servers (activate all tools of one as NAME__*)';

/** Characters of a description shown for a tool without an area (areas show names only). */
const SUMMARY_CHARS = 56;
const lean = new WeakMap<Tool, ToolDefinition>();

/**
 * A schema as the model needs it: without the noise schema generators add (`$schema`, integer bounds of
 * ±MAX_SAFE_INTEGER, `additionalProperties: false`, a minimum length or item count of 1). Validation still
 * uses the tool's full schema.
 */
function leanSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(leanSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$schema') continue;
    if (key === 'additionalProperties' && value === false) continue;
    if ((key === 'maximum' || key === 'minimum') && Math.abs(Number(value)) === Number.MAX_SAFE_INTEGER)
      continue;
    // "not empty" goes without saying for a model; the full schema still refuses an empty value.
    if ((key === 'minLength' || key === 'minItems') && value === 1) continue;
    out[key] = leanSchema(value);
  }
  return out;
}

/** The definition sent for `tool`, computed once per tool object. */
export function definitionOf(tool: Tool): ToolDefinition {
  let definition = lean.get(tool);
  if (!definition) {
    definition = {
      name: tool.name,
      description: tool.description,
      parameters: leanSchema(tool.parameters) as JsonSchema,
    };
    lean.set(tool, definition);
  }
  return definition;
}

/** The first sentence of a description, cut at a word boundary to fit one short catalogue line. */
export function summaryOf(description: string): string {
  const first = description.split(/(?<=[.!?])\s|\n/)[0]!.trim();
  if (first.length <= SUMMARY_CHARS) return first.replace(/\.$/, '');
  const cut = first.slice(0, SUMMARY_CHARS);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), 32))}…`;
}

/**
 * The catalogue lines for on-demand tools, in registration order: one line per area listing its tools' names
 * (`- scheduling: reminder, cron, goal`), placed where the area's first tool is; a tool without an area gets
 * its own line with a summary of its description. Grows by a word per tool of a known area.
 */
export function catalogueLines(tools: Iterable<Tool>): string[] {
  const lines: string[] = [];
  const areas = new Map<string, { line: number; names: string[] }>();
  for (const tool of tools) {
    if (!tool.area) {
      lines.push(`- ${tool.name}: ${summaryOf(tool.description)}`);
      continue;
    }
    const area = areas.get(tool.area);
    if (area) area.names.push(tool.name);
    else areas.set(tool.area, { line: lines.push('') - 1, names: [tool.name] });
  }
  for (const [name, area] of areas) lines[area.line] = `- ${name}: ${area.names.join(', ')}`;
  return lines;
}

/** `use_tools`, listing what can still be activated (see {@link catalogueLines}; groups share the last line). */
export function useToolsDefinition(lines: string[]): ToolDefinition {
  return {
    name: USE_TOOLS,
    description: `Load more tools for this turn by name (schemas come next step):\n${lines.join('\n')}`,
    parameters: {
      type: 'object',
      properties: { names: { type: 'array', items: { type: 'string' } } },
      required: ['names'],
    },
  };
}
