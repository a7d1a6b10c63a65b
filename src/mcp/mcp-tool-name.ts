import { createHash } from 'node:crypto';

/** Longest tool name every provider accepts. */
export const MAX_TOOL_NAME = 64;

function sanitise(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, '_');
}

/**
 * The name a model sees for an MCP tool: `<server>__<tool>`, with characters providers refuse replaced by `_`
 * and cut to 64 characters. When that name is `taken` (another tool, or a sanitised twin), a short hash of the
 * original server and tool names is appended instead, so the result is stable across restarts.
 */
export function mcpToolName(server: string, tool: string, taken: (name: string) => boolean): string {
  const base = `${sanitise(server)}__${sanitise(tool)}`;
  const plain = base.slice(0, MAX_TOOL_NAME);
  if (!taken(plain)) return plain;
  for (let round = 0; ; round++) {
    const digest = createHash('sha256')
      .update(`${server}\u0000${tool}\u0000${round}`)
      .digest('hex')
      .slice(0, 6);
    const candidate = `${base.slice(0, MAX_TOOL_NAME - 7)}_${digest}`;
    if (!taken(candidate)) return candidate;
  }
}
