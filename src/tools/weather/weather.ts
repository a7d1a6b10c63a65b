import { z } from 'zod';
import { type Tool, ToolError } from '../../agent/tool.js';
import { TOOL_AREAS } from '../../agent/tool-catalog.js';
import { toolSchema } from '../../agent/tool-schema.js';
import type { WebConfig } from '../web-config.js';
import { OPEN_METEO_URLS, type OpenMeteoUrls, openMeteoWeather } from './open-meteo.js';
import { OPENWEATHERMAP_URL, openWeatherMapWeather } from './openweathermap.js';
import { formatReport, type WeatherQuery, type WeatherReport } from './weather-report.js';

const parameters = z
  .object({
    location: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .describe('A place name ("Berlin", "Paris, France") or coordinates as "lat,lon"'),
    days: z.number().int().min(1).max(7).optional().describe('Days of forecast, today included (default 3)'),
  })
  .strict();

/** Base URLs of the weather providers (tests point them at local servers). */
export interface WeatherDeps {
  openMeteo?: OpenMeteoUrls;
  openWeatherMapUrl?: string;
}

/**
 * The report for `location` over `days` days from the configured provider: OpenWeatherMap when its key is
 * set, else Open-Meteo. Shared by the tool and the morning briefing.
 * @throws ToolError for an unknown place, FetchError for network or API failures.
 */
export async function weatherReport(
  config: WebConfig['weather'],
  limits: Pick<WebConfig['fetch'], 'timeoutMs' | 'userAgent'>,
  deps: WeatherDeps,
  location: string,
  days: number,
  signal?: AbortSignal,
): Promise<WeatherReport> {
  const query: WeatherQuery = {
    location,
    days,
    units: config.units,
    timeoutMs: limits.timeoutMs,
    userAgent: limits.userAgent,
  };
  return config.openWeatherMapKey
    ? openWeatherMapWeather(
        query,
        config.openWeatherMapKey,
        deps.openWeatherMapUrl ?? OPENWEATHERMAP_URL,
        signal,
      )
    : openMeteoWeather(query, deps.openMeteo ?? OPEN_METEO_URLS, signal);
}

/**
 * `weather`: current conditions and a short daily forecast for a place. Open-Meteo (no key) unless
 * `web.weather.openweathermap_key` is set, then OpenWeatherMap (up to 5 days). Units from
 * `web.weather.units`. Never throws for failures: an unknown place or an API problem is an error result.
 */
export function createWeatherTool(
  config: WebConfig['weather'],
  limits: Pick<WebConfig['fetch'], 'timeoutMs' | 'userAgent'>,
  deps: WeatherDeps = {},
): Tool {
  return {
    name: 'weather',
    description:
      'Current weather and a short daily forecast for a place name or coordinates. Compact text: now, then one line per day.',
    parameters: toolSchema(parameters),
    risk: 'safe',
    area: TOOL_AREAS.web,
    // The place name leaves the machine: after untrusted content the gate may ask.
    assess: () => {
      const host = new URL(
        config.openWeatherMapKey ? (deps.openWeatherMapUrl ?? OPENWEATHERMAP_URL) : OPEN_METEO_URLS.forecast,
      ).hostname;
      return { target: host, egress: { target: host } };
    },
    async execute(raw, _ctx, signal) {
      try {
        const args = parameters.parse(raw);
        const report = await weatherReport(config, limits, deps, args.location, args.days ?? 3, signal);
        return { content: formatReport(report, config.units), details: report };
      } catch (error) {
        if (signal.aborted) throw error;
        const message =
          error instanceof ToolError
            ? error.message
            : `weather failed: ${(error as Error)?.message ?? String(error)}`;
        // A key must never reach the model, even inside an unexpected library message.
        const secret = config.openWeatherMapKey;
        return { content: secret ? message.replaceAll(secret, '[key]') : message, isError: true };
      }
    },
  };
}
