import { describe, expect, it } from 'vitest';
import { createWebTools } from './net/web-tools.js';
import { defaultWebConfig, toWebConfig, webSectionSchema } from './web-config.js';

describe('web config section', () => {
  it('defaults every key', () => {
    expect(defaultWebConfig()).toEqual({
      fetch: {
        allow: [],
        maxBytes: 5 * 1024 * 1024,
        maxChars: 50_000,
        timeoutMs: 30_000,
        connectTimeoutMs: 10_000,
        maxRedirects: 5,
        userAgent: expect.stringContaining('Wren'),
      },
      search: { maxResults: 5 },
      weather: { units: 'metric' },
    });
  });

  it('maps snake_case to camelCase, accepts numbers as strings and drops empty keys', () => {
    const parsed = webSectionSchema.parse({
      fetch: { allow: ['localhost:8080', '10.0.0.0/8', '*.lan'], timeout: '2.5', max_redirects: '0' },
      search: { provider: 'brave', api_key: '', max_results: 8 },
      weather: { openweathermap_key: 'k', units: 'imperial' },
    });
    const config = toWebConfig(parsed);
    expect(config.fetch).toMatchObject({
      allow: ['localhost:8080', '10.0.0.0/8', '*.lan'],
      timeoutMs: 2500,
      maxRedirects: 0,
    });
    expect(config.search).toEqual({ provider: 'brave', maxResults: 8 });
    expect(config.weather).toEqual({ openWeatherMapKey: 'k', units: 'imperial' });
  });

  it('rejects bad values with messages that say what to write', () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ fetch: { allow: ['not a host'] } }, /not a host name, host:port, IP address or CIDR block/],
      [{ fetch: { allow: ['10.0.0.0/40'] } }, /prefix longer than 32 bits/],
      [{ fetch: { timeout: 0 } }, /too_small|>0|greater/i],
      [{ fetch: { max_redirects: 50 } }, /20/],
      [{ fetch: { unknown: 1 } }, /unknown|Unrecognized/i],
      [{ search: { provider: 'google' } }, /brave|tavily|searxng|duckduckgo/],
      [{ search: { provider: 'searxng' } }, /searxng needs base_url/],
      [{ search: { base_url: 'ftp://x' } }, /http\(s\) URL/],
      [{ weather: { units: 'kelvin' } }, /metric|imperial/],
    ];
    for (const [input, pattern] of cases) {
      const result = webSectionSchema.safeParse(input);
      expect(result.success, JSON.stringify(input)).toBe(false);
      expect(JSON.stringify(result.error?.issues), JSON.stringify(input)).toMatch(pattern);
    }
  });

  it('creates web_search, web_fetch (core) and weather (on demand)', () => {
    const tools = createWebTools(defaultWebConfig());
    expect(tools.map((tool) => [tool.name, tool.risk, tool.core ?? false])).toEqual([
      ['web_search', 'moderate', true],
      ['web_fetch', 'moderate', true],
      ['weather', 'safe', false],
    ]);
  });
});
