import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, resolveEndpoints } from '../src/config/load-config.js';

describe('docs/models.md', () => {
  it('shows a Gemini configuration that Wren accepts as written', () => {
    const gemini = readFileSync('docs/models.md', 'utf8').split('\n## Gemini\n')[1];
    const example = gemini?.match(/```yaml\n(models:[\s\S]*?)```/)?.[1];
    expect(example).toBeDefined();
    const home = join(mkdtempSync(join(tmpdir(), 'wren-models-doc-')), 'home');
    mkdirSync(home);
    writeFileSync(join(home, 'config.yaml'), example!);
    const [endpoint] = resolveEndpoints(loadConfig(home, { GEMINI_API_KEY: 'AIza-doc-key' }));
    expect(endpoint).toMatchObject({
      name: 'gemini',
      protocol: 'gemini',
      baseUrl: 'https://generativelanguage.googleapis.com/v1beta',
      apiKey: 'AIza-doc-key',
      model: 'gemini-2.5-flash',
      vision: true,
    });
  });
});
