import { type SafeResponse, safeFetch } from '../net/safe-fetch.js';
import { FetchError } from '../net/target-url.js';

/** Units a report is in. */
export type Units = 'metric' | 'imperial';

/** One day of a forecast. */
export interface DayForecast {
  /** `YYYY-MM-DD` in the place's time zone. */
  date: string;
  min: number;
  max: number;
  condition: string;
  /** Total precipitation (mm or inches). */
  precipitation?: number;
  /** Highest chance of precipitation that day, 0-100. */
  precipitationChance?: number;
}

/** What a provider returns: the place it found, current conditions and the next days. */
export interface WeatherReport {
  place: string;
  latitude: number;
  longitude: number;
  current: {
    temperature: number;
    feelsLike?: number;
    humidity?: number;
    windSpeed?: number;
    condition: string;
  };
  days: DayForecast[];
  source: string;
}

/** What a provider is asked for. */
export interface WeatherQuery {
  /** A place name (`Berlin`, `Paris, France`) or `lat,lon`. */
  location: string;
  days: number;
  units: Units;
  timeoutMs: number;
  userAgent: string;
}

/** `lat,lon` when the location is coordinates, else undefined. */
export function parseCoordinates(location: string): { latitude: number; longitude: number } | undefined {
  const match = /^\s*(-?\d{1,2}(?:\.\d+)?)\s*,\s*(-?\d{1,3}(?:\.\d+)?)\s*$/.exec(location);
  if (!match) return undefined;
  const latitude = Number(match[1]);
  const longitude = Number(match[2]);
  return Math.abs(latitude) <= 90 && Math.abs(longitude) <= 180 ? { latitude, longitude } : undefined;
}

/**
 * GETs a provider URL and parses its JSON. The URL may carry an API key in its query: messages never show it.
 * @throws FetchError naming the provider and what to do; `onStatus` may supply a better message first.
 */
export async function getJson(
  label: string,
  url: URL,
  query: Pick<WeatherQuery, 'timeoutMs' | 'userAgent'>,
  onStatus: (response: SafeResponse) => string | undefined,
  signal?: AbortSignal,
): Promise<unknown> {
  const response = await safeFetch(
    url.href,
    {
      headers: { accept: 'application/json', 'user-agent': query.userAgent },
      maxBytes: 1024 * 1024,
      timeoutMs: query.timeoutMs,
      connectTimeoutMs: Math.min(query.timeoutMs, 10_000),
      maxRedirects: 0,
    },
    signal,
  );
  const special = onStatus(response);
  if (special) throw new FetchError(special);
  if (response.status >= 300)
    throw new FetchError(`${label} answered HTTP ${response.status}; try again later.`);
  try {
    return JSON.parse(response.body.toString('utf8'));
  } catch {
    throw new FetchError(`${label} sent a response that is not JSON; try again later.`);
  }
}

function round(value: number): string {
  return String(Math.round(value * 10) / 10);
}

/** A compact text rendering: one line for now, one per day. */
export function formatReport(report: WeatherReport, units: Units): string {
  const degrees = units === 'metric' ? '°C' : '°F';
  const speed = units === 'metric' ? 'km/h' : 'mph';
  const rain = units === 'metric' ? 'mm' : 'in';
  const { current } = report;
  const now = [
    `${round(current.temperature)}${degrees}`,
    current.feelsLike !== undefined ? `(feels like ${round(current.feelsLike)}${degrees})` : undefined,
    current.condition,
  ]
    .filter(Boolean)
    .join(' ');
  const extras = [
    current.humidity !== undefined ? `humidity ${Math.round(current.humidity)}%` : undefined,
    current.windSpeed !== undefined ? `wind ${round(current.windSpeed)} ${speed}` : undefined,
  ].filter(Boolean);
  const lines = [
    `Weather for ${report.place} (${round(report.latitude)}, ${round(report.longitude)}):`,
    `Now: ${[now, ...extras].join(', ')}`,
  ];
  for (const day of report.days) {
    const wet = [
      day.precipitation !== undefined && day.precipitation > 0
        ? `${round(day.precipitation)} ${rain}`
        : undefined,
      day.precipitationChance !== undefined
        ? `${Math.round(day.precipitationChance)}% chance of precipitation`
        : undefined,
    ].filter(Boolean);
    lines.push(
      `${day.date}: ${round(day.min)} to ${round(day.max)}${degrees}, ${day.condition}${wet.length ? `, ${wet.join(', ')}` : ''}`,
    );
  }
  lines.push(`Source: ${report.source}`);
  return lines.join('\n');
}
