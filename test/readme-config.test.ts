import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, resolveEndpoints } from '../src/config/load-config.js';

describe('README', () => {
  it('shows a configuration example that Wren accepts as written', () => {
    const readme = readFileSync('README.md', 'utf8');
    const example = readme.match(/```yaml\n(models:[\s\S]*?)```/)?.[1];
    expect(example).toBeDefined();
    const home = join(mkdtempSync(join(tmpdir(), 'wren-readme-')), 'home');
    mkdirSync(home);
    writeFileSync(join(home, 'config.yaml'), example!);
    const config = loadConfig(home, {
      OPENAI_API_KEY: 'k1',
      ANTHROPIC_API_KEY: 'k2',
      BRAVE_API_KEY: 'k3',
      WREN_GATEWAY_TOKEN: 'a-long-enough-token-123',
    });
    expect(resolveEndpoints(config).map((endpoint) => endpoint.name)).toEqual(['main', 'claude', 'local']);
    expect(config.gate.mode).toBe('ask');
    expect(config.tools.exec.sandbox).toBe('auto');
  });
});
