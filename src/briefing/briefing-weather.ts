import type { WrenConfig } from '../config/wren-config.js';
import { type WeatherDeps, weatherReport } from '../tools/weather/weather.js';
import { formatReport } from '../tools/weather/weather-report.js';
import type { BriefingSources } from './gather-briefing.js';

/**
 * The briefing's forecast source when `briefing.weather` names a place: today's report from the same
 * provider, units and limits as the `weather` tool (`web.weather`), as the tool would print it.
 */
export function briefingWeather(
  config: WrenConfig,
  deps: WeatherDeps = {},
): Pick<BriefingSources, 'weather'> {
  const location = config.briefing.weather;
  if (!location) return {};
  const { weather, fetch } = config.web;
  return {
    weather: async (signal) =>
      formatReport(await weatherReport(weather, fetch, deps, location, 1, signal), weather.units),
  };
}
