import type { JsonSchema, ToolDefinition } from '../llm/types.js';
import type { Tool } from './tool.js';

/** The name of the built-in activation tool the loop handles itself. */
export const USE_TOOLS = 'use_tools';

/** Heading of the one catalogue line that lists every tool group (an MCP server's tools). */
export const GROUPS_HEADING = 'MCP servers (activate all tools of one as NAME__*)';

const SUMMARY_CHARS = 72;
const lean = new WeakMap<Tool, ToolDefinition>();

/**
 * A schema as the model needs it: without the noise schema generators add (`$schema`, integer bounds of
 * ±MAX_SAFE_INTEGER, `additionalProperties: false`). Validation still uses the tool's full schema.
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
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), 40))}…`;
}

/** `use_tools`, listing what can still be activated (one line each; groups share the last line). */
export function useToolsDefinition(lines: string[]): ToolDefinition {
  return {
    name: USE_TOOLS,
    description: `Activate more tools for this turn (schemas arrive next step). Available:\n${lines.join('\n')}`,
    parameters: {
      type: 'object',
      properties: { names: { type: 'array', items: { type: 'string' }, minItems: 1 } },
      required: ['names'],
    },
  };
}
