import type { Tool } from '../../agent/tool.js';
import { createWeatherTool, type WeatherDeps } from '../weather/weather.js';
import type { WebConfig } from '../web-config.js';
import { createWebFetchTool, type WebFetchDeps } from '../web-fetch/web-fetch.js';
import { createWebSearchTool } from '../web-search/web-search.js';

/** What tests (or an unusual deployment) may swap: DNS and clock for web_fetch, provider URLs for weather. */
export interface WebToolsDeps extends WebFetchDeps {
  weather?: WeatherDeps;
}

/**
 * The web tools in registration order: `web_search` and `web_fetch` (core, moderate) and `weather` (safe,
 * on demand). Search provider URLs come from `web.search.base_url`.
 * @throws Error when `config.fetch.allow` holds an invalid entry (the config schema rejects those first).
 */
export function createWebTools(config: WebConfig, deps: WebToolsDeps = {}): Tool[] {
  const { weather, ...fetchDeps } = deps;
  return [
    createWebSearchTool(config.search, config.fetch),
    createWebFetchTool(config.fetch, fetchDeps),
    createWeatherTool(config.weather, config.fetch, weather),
  ];
}
