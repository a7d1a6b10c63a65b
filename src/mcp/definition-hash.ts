import { createHash } from 'node:crypto';
import type { PinnedToolDefinition } from '../store/mcp-pin-repository.js';

/** JSON with object keys sorted, so equal definitions always serialise (and hash) the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** The pinned part of a server's tools: names, descriptions, input schemas, sorted by name. */
export function pinnedDefinitions(
  tools: ReadonlyArray<{ name: string; description?: string | undefined; inputSchema?: unknown }>,
): PinnedToolDefinition[] {
  return tools
    .map((tool) => ({
      name: tool.name,
      description: tool.description ?? '',
      inputSchema: tool.inputSchema ?? {},
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** SHA-256 of the canonical form of {@link pinnedDefinitions}: changes iff a name, description or schema does. */
export function definitionsHash(definitions: readonly PinnedToolDefinition[]): string {
  return createHash('sha256').update(canonical(definitions)).digest('hex');
}

/** What changed between two versions, for the owner: `added: x; removed: y; changed: z (description)`. */
export function describeDefinitionChange(
  before: readonly PinnedToolDefinition[],
  after: readonly PinnedToolDefinition[],
): string {
  const old = new Map(before.map((tool) => [tool.name, tool]));
  const now = new Map(after.map((tool) => [tool.name, tool]));
  const added = [...now.keys()].filter((name) => !old.has(name));
  const removed = [...old.keys()].filter((name) => !now.has(name));
  const changed = [...now.values()].flatMap((tool) => {
    const previous = old.get(tool.name);
    if (!previous) return [];
    const parts = [
      previous.description !== tool.description ? 'description' : '',
      canonical(previous.inputSchema) !== canonical(tool.inputSchema) ? 'schema' : '',
    ].filter(Boolean);
    return parts.length ? [`${tool.name} (${parts.join(', ')})`] : [];
  });
  const out = [
    added.length ? `added: ${added.join(', ')}` : '',
    removed.length ? `removed: ${removed.join(', ')}` : '',
    changed.length ? `changed: ${changed.join(', ')}` : '',
  ].filter(Boolean);
  return out.join('; ') || 'no visible difference';
}
