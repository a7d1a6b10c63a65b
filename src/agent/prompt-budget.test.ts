import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { helloTokens } from '../../bench/prompt-tokens-bench.js';

const root = mkdtempSync(join(tmpdir(), 'wren-prompt-budget-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * The prompt a provider bills for "hi" with every feature on (the bench's home: every channel, semantic
 * memory, tidy, web keys, proactive, three real MCP servers on demand), counted as cl100k over the JSON of
 * messages and tools. Fails when a feature adds a long line to the catalogue or a schema grows.
 */
describe('the prompt of "hi" with every feature on', () => {
  it('costs at most 1,300 tokens, the use_tools catalogue at most 150', async () => {
    const hi = await helloTokens(root);
    expect(hi.mcpServers).toBe(3);
    expect(hi.json).toBeLessThanOrEqual(1300);
    expect(hi.catalogue).toBeLessThanOrEqual(150);
    // Only the always-on tools and use_tools are sent; the rest wait in the catalogue.
    expect(hi.toolCount).toBeLessThanOrEqual(9);
    expect(hi.allTools).toBeGreaterThan(hi.toolCount * 3);
  }, 90_000);
});
