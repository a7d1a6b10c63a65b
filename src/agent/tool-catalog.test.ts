import { describe, expect, it } from 'vitest';
import { estimateTokens } from '../llm/token-estimate.js';
import type { Tool } from './tool.js';
import { catalogueLines, definitionOf, GROUPS_HEADING, USE_TOOLS } from './tool-catalog.js';
import { ToolRegistry } from './tool-registry.js';

const LONG =
  'Does a great many things for the owner, explained at length: what it stores, when it runs, how it is ' +
  'cancelled, which channels it reaches and what it refuses, so that a model that loads it knows it well.';

function tool(name: string, extra: Partial<Tool> = {}): Tool {
  return {
    name,
    description: LONG,
    parameters: { type: 'object', properties: { text: { type: 'string' } } },
    risk: 'safe',
    async execute() {
      return { content: 'ok' };
    },
    ...extra,
  };
}

const catalogue = (registry: ToolRegistry) =>
  registry.requestDefinitions(new Set()).find((definition) => definition.name === USE_TOOLS)!.description;

const AREAS = ['scheduling', 'messaging', 'notes', 'web', 'subagents', 'skills'];

function registryWith(toolsPerArea: number): ToolRegistry {
  const registry = new ToolRegistry().register(tool('read_file', { core: true }));
  for (let i = 0; i < toolsPerArea; i++)
    for (const area of AREAS) registry.register(tool(`${area}_${i}`, { area }));
  return registry;
}

describe('the use_tools catalogue', () => {
  it('lists each area once with its tools’ names, never their descriptions', () => {
    const text = catalogue(registryWith(2));
    const lines = text.split('\n');
    expect(lines).toHaveLength(1 + AREAS.length);
    expect(lines[1]).toBe('- scheduling: scheduling_0, scheduling_1');
    expect(lines.at(-1)).toBe('- skills: skills_0, skills_1');
    expect(text).not.toContain('great many things');
  });

  it('grows by a name per tool of a known area, not by a line (scales with features)', () => {
    const small = catalogue(registryWith(1));
    const large = catalogue(registryWith(11)); // 60 more on-demand tools, in the same areas
    expect(large.split('\n')).toHaveLength(small.split('\n').length);
    const perTool = (estimateTokens(large) - estimateTokens(small)) / (10 * AREAS.length);
    expect(perTool).toBeLessThanOrEqual(5); // `, scheduling_7`: the name and a comma
    // With every built-in area in use, the whole catalogue stays small.
    expect(estimateTokens(small)).toBeLessThanOrEqual(60);
  });

  it('gives a tool without an area one short line, and every MCP server one word on a shared line', () => {
    const registry = registryWith(1).register(tool('plugin_tool'));
    const servers = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];
    for (const server of servers) {
      registry.register(tool(`${server}__a`)).register(tool(`${server}__b`));
      registry.setGroup(`${server}__*`, '', [`${server}__a`, `${server}__b`]);
    }
    const lines = catalogue(registry).split('\n');
    expect(lines).toHaveLength(1 + AREAS.length + 2);
    const own = lines.find((line) => line.startsWith('- plugin_tool: '))!;
    expect(own.length).toBeLessThanOrEqual(80);
    expect(own).toMatch(/…$/);
    expect(lines.at(-1)).toBe(`- ${GROUPS_HEADING}: ${servers.join(', ')}`);
  });

  it('keeps an area where its first tool was registered and leaves out what is active', () => {
    const lines = catalogueLines([
      tool('b1', { area: 'b' }),
      tool('solo', { description: 'Short one. More detail.' }),
      tool('a1', { area: 'a' }),
      tool('b2', { area: 'b' }),
    ]);
    expect(lines).toEqual(['- b: b1, b2', '- solo: Short one', '- a: a1']);
    const registry = registryWith(1);
    const rest = registry.requestDefinitions(new Set(['web_0']));
    expect(rest.map((definition) => definition.name)).toEqual(['read_file', 'web_0', USE_TOOLS]);
    expect(rest.at(-1)!.description).not.toContain('- web:');
  });

  it('sends schemas without noise that says nothing to a model, and validation keeps the full schema', () => {
    const full = tool('t', {
      parameters: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: {
          text: { type: 'string', minLength: 1, maxLength: 400 },
          list: { type: 'array', items: { type: 'string' }, minItems: 1 },
          count: { type: 'integer', minimum: 2, maximum: Number.MAX_SAFE_INTEGER },
        },
        additionalProperties: false,
      },
    });
    expect(definitionOf(full).parameters).toEqual({
      type: 'object',
      properties: {
        text: { type: 'string', maxLength: 400 },
        list: { type: 'array', items: { type: 'string' } },
        count: { type: 'integer', minimum: 2 },
      },
    });
    expect(full.parameters['additionalProperties']).toBe(false);
  });
});
