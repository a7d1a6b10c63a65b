import { ToolError } from '../../agent/tool.js';
import type { SafeResponse } from '../net/safe-fetch.js';
import {
  type DayForecast,
  getJson,
  parseCoordinates,
  type WeatherQuery,
  type WeatherReport,
} from './weather-report.js';

/** Where OpenWeatherMap is reached (geocoding and data share one host); overridable for tests. */
export const OPENWEATHERMAP_URL = 'https://api.openweathermap.org';

const LABEL = 'OpenWeatherMap';

function statusMessage(response: SafeResponse): string | undefined {
  if (response.status === 401) {
    return `${LABEL} rejected the API key (HTTP 401); check web.weather.openweathermap_key in config.yaml (new keys take a few hours to activate).`;
  }
  if (response.status === 429) return `${LABEL} rate limit reached (HTTP 429); try again later.`;
  if (response.status === 404) return `${LABEL} has no weather for that place.`;
  return undefined;
}

interface Entry {
  dt: number;
  main?: { temp_min?: number; temp_max?: number };
  weather?: Array<{ description?: string }>;
  pop?: number;
  rain?: { '3h'?: number };
  snow?: { '3h'?: number };
}

/** Groups the 3-hourly forecast into days in the place's time zone. */
function dailyFrom(list: Entry[], offsetSeconds: number, units: WeatherQuery['units']): DayForecast[] {
  const byDate = new Map<string, Entry[]>();
  for (const entry of list) {
    const date = new Date((entry.dt + offsetSeconds) * 1000).toISOString().slice(0, 10);
    byDate.set(date, [...(byDate.get(date) ?? []), entry]);
  }
  return [...byDate].map(([date, entries]) => {
    const counts = new Map<string, number>();
    for (const entry of entries) {
      const text = entry.weather?.[0]?.description ?? 'unknown conditions';
      counts.set(text, (counts.get(text) ?? 0) + 1);
    }
    const condition = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'unknown conditions';
    const millimetres = entries.reduce((sum, e) => sum + (e.rain?.['3h'] ?? 0) + (e.snow?.['3h'] ?? 0), 0);
    return {
      date,
      min: Math.min(...entries.map((e) => e.main?.temp_min ?? Number.POSITIVE_INFINITY)),
      max: Math.max(...entries.map((e) => e.main?.temp_max ?? Number.NEGATIVE_INFINITY)),
      condition,
      precipitation: units === 'metric' ? millimetres : millimetres / 25.4,
      precipitationChance: Math.max(...entries.map((e) => (e.pop ?? 0) * 100)),
    };
  });
}

/**
 * Current conditions and up to 5 days from OpenWeatherMap's free 2.5 API (geocoding via /geo/1.0/direct).
 * The key travels in the query string and never appears in a message.
 * @throws ToolError for an unknown place, FetchError for network, key or API failures.
 */
export async function openWeatherMapWeather(
  query: WeatherQuery,
  apiKey: string,
  baseUrl: string = OPENWEATHERMAP_URL,
  signal?: AbortSignal,
): Promise<WeatherReport> {
  const withKey = (path: string, params: Record<string, string>) => {
    const url = new URL(path, baseUrl);
    url.search = new URLSearchParams({ ...params, appid: apiKey }).toString();
    return url;
  };
  let place = parseCoordinates(query.location) as
    | { name?: string; state?: string; country?: string; latitude: number; longitude: number }
    | undefined;
  if (!place) {
    const found = (await getJson(
      LABEL,
      withKey('/geo/1.0/direct', { q: query.location, limit: '1' }),
      query,
      statusMessage,
      signal,
    )) as Array<{ name?: string; lat?: number; lon?: number; country?: string; state?: string }>;
    const first = Array.isArray(found) ? found[0] : undefined;
    if (!first || typeof first.lat !== 'number' || typeof first.lon !== 'number') {
      throw new ToolError(
        `No place called "${query.location}" was found. Check the spelling, add the country code ("Springfield, US"), or give coordinates as "lat,lon".`,
      );
    }
    place = { ...first, latitude: first.lat, longitude: first.lon };
  }
  const position = { lat: String(place.latitude), lon: String(place.longitude), units: query.units };
  const current = (await getJson(
    LABEL,
    withKey('/data/2.5/weather', position),
    query,
    statusMessage,
    signal,
  )) as {
    name?: string;
    main?: { temp?: number; feels_like?: number; humidity?: number };
    wind?: { speed?: number };
    weather?: Array<{ description?: string }>;
  };
  const forecast = (await getJson(
    LABEL,
    withKey('/data/2.5/forecast', position),
    query,
    statusMessage,
    signal,
  )) as {
    list?: Entry[];
    city?: { timezone?: number };
  };
  if (typeof current.main?.temp !== 'number') {
    throw new ToolError(`${LABEL} returned no current weather for ${query.location}; try again later.`);
  }
  const wind = current.wind?.speed;
  const name = place.name ?? current.name ?? `${place.latitude}, ${place.longitude}`;
  return {
    place: [name, place.state, place.country].filter(Boolean).join(', '),
    latitude: place.latitude,
    longitude: place.longitude,
    current: {
      temperature: current.main.temp,
      ...(typeof current.main.feels_like === 'number' ? { feelsLike: current.main.feels_like } : {}),
      ...(typeof current.main.humidity === 'number' ? { humidity: current.main.humidity } : {}),
      // Metric wind comes in m/s; reports use km/h.
      ...(typeof wind === 'number' ? { windSpeed: query.units === 'metric' ? wind * 3.6 : wind } : {}),
      condition: current.weather?.[0]?.description ?? 'unknown conditions',
    },
    days: dailyFrom(forecast.list ?? [], forecast.city?.timezone ?? 0, query.units).slice(0, query.days),
    source: LABEL,
  };
}
