import { ToolError } from '../../agent/tool.js';
import {
  type DayForecast,
  getJson,
  parseCoordinates,
  type WeatherQuery,
  type WeatherReport,
} from './weather-report.js';

/** Where Open-Meteo is reached (overridable for tests). */
export interface OpenMeteoUrls {
  geocoding: string;
  forecast: string;
}

export const OPEN_METEO_URLS: OpenMeteoUrls = {
  geocoding: 'https://geocoding-api.open-meteo.com',
  forecast: 'https://api.open-meteo.com',
};

/** WMO weather interpretation codes, as Open-Meteo reports them. */
const WMO: Record<number, string> = {
  0: 'clear sky',
  1: 'mainly clear',
  2: 'partly cloudy',
  3: 'overcast',
  45: 'fog',
  48: 'depositing rime fog',
  51: 'light drizzle',
  53: 'drizzle',
  55: 'dense drizzle',
  56: 'light freezing drizzle',
  57: 'freezing drizzle',
  61: 'light rain',
  63: 'rain',
  65: 'heavy rain',
  66: 'light freezing rain',
  67: 'freezing rain',
  71: 'light snow',
  73: 'snow',
  75: 'heavy snow',
  77: 'snow grains',
  80: 'light rain showers',
  81: 'rain showers',
  82: 'violent rain showers',
  85: 'light snow showers',
  86: 'snow showers',
  95: 'thunderstorm',
  96: 'thunderstorm with light hail',
  99: 'thunderstorm with heavy hail',
};

export function describeWmo(code: unknown): string {
  return typeof code === 'number' ? (WMO[code] ?? `weather code ${code}`) : 'unknown conditions';
}

interface Place {
  name: string;
  latitude: number;
  longitude: number;
  country?: string;
  admin1?: string;
  country_code?: string;
}

const LABEL = 'Open-Meteo';

function openMeteoError(response: { status: number; body: Buffer }): string | undefined {
  if (response.status !== 400) return undefined;
  try {
    const reason = (JSON.parse(response.body.toString('utf8')) as { reason?: unknown }).reason;
    return `${LABEL} refused the request: ${typeof reason === 'string' ? reason : 'bad request'}.`;
  } catch {
    return `${LABEL} refused the request (HTTP 400).`;
  }
}

/** Finds a place by name; `Paris, France` searches `Paris` and prefers results whose region or country match. */
async function geocode(urls: OpenMeteoUrls, query: WeatherQuery, signal?: AbortSignal): Promise<Place> {
  const [name = '', ...qualifiers] = query.location.split(',').map((part) => part.trim());
  const url = new URL('/v1/search', urls.geocoding);
  url.search = new URLSearchParams({ name, count: '10', language: 'en', format: 'json' }).toString();
  const body = (await getJson(LABEL, url, query, openMeteoError, signal)) as { results?: Place[] };
  const results = Array.isArray(body.results) ? body.results : [];
  const wanted = qualifiers.map((part) => part.toLowerCase()).filter(Boolean);
  const fits = (place: Place) =>
    wanted.every((part) =>
      [place.country, place.admin1, place.country_code].some((field) => field?.toLowerCase() === part),
    );
  const place = results.find(fits) ?? (wanted.length === 0 ? results[0] : undefined);
  if (!place) {
    throw new ToolError(
      `No place called "${query.location}" was found. Check the spelling, use a nearby city, add the country ("Springfield, US"), or give coordinates as "lat,lon".`,
    );
  }
  return place;
}

const numbers = (value: unknown): number[] => (Array.isArray(value) ? (value as number[]) : []);

/**
 * Current conditions and a daily forecast from Open-Meteo (no key). Coordinates skip geocoding.
 * @throws ToolError for an unknown place, FetchError for network or API failures.
 */
export async function openMeteoWeather(
  query: WeatherQuery,
  urls: OpenMeteoUrls = OPEN_METEO_URLS,
  signal?: AbortSignal,
): Promise<WeatherReport> {
  const coordinates = parseCoordinates(query.location);
  const place: Place = coordinates
    ? { name: `${coordinates.latitude}, ${coordinates.longitude}`, ...coordinates }
    : await geocode(urls, query, signal);
  const url = new URL('/v1/forecast', urls.forecast);
  const params = new URLSearchParams({
    latitude: String(place.latitude),
    longitude: String(place.longitude),
    current: 'temperature_2m,apparent_temperature,relative_humidity_2m,weather_code,wind_speed_10m',
    daily:
      'weather_code,temperature_2m_max,temperature_2m_min,precipitation_sum,precipitation_probability_max',
    timezone: 'auto',
    forecast_days: String(query.days),
  });
  if (query.units === 'imperial') {
    params.set('temperature_unit', 'fahrenheit');
    params.set('wind_speed_unit', 'mph');
    params.set('precipitation_unit', 'inch');
  }
  url.search = params.toString();
  const body = (await getJson(LABEL, url, query, openMeteoError, signal)) as {
    current?: Record<string, number>;
    daily?: Record<string, unknown>;
  };
  const current = body.current ?? {};
  const daily = body.daily ?? {};
  const dates = Array.isArray(daily.time) ? (daily.time as string[]) : [];
  const days: DayForecast[] = dates.map((date, index) => {
    const rain = numbers(daily.precipitation_sum)[index];
    const chance = numbers(daily.precipitation_probability_max)[index];
    return {
      date,
      min: numbers(daily.temperature_2m_min)[index] ?? Number.NaN,
      max: numbers(daily.temperature_2m_max)[index] ?? Number.NaN,
      condition: describeWmo(numbers(daily.weather_code)[index]),
      ...(typeof rain === 'number' ? { precipitation: rain } : {}),
      ...(typeof chance === 'number' ? { precipitationChance: chance } : {}),
    };
  });
  if (typeof current.temperature_2m !== 'number') {
    throw new ToolError(`${LABEL} returned no current weather for ${place.name}; try again later.`);
  }
  return {
    place: [place.name, place.admin1, place.country]
      .filter((part, i, all) => part && all.indexOf(part) === i)
      .join(', '),
    latitude: place.latitude,
    longitude: place.longitude,
    current: {
      temperature: current.temperature_2m,
      ...(typeof current.apparent_temperature === 'number'
        ? { feelsLike: current.apparent_temperature }
        : {}),
      ...(typeof current.relative_humidity_2m === 'number' ? { humidity: current.relative_humidity_2m } : {}),
      ...(typeof current.wind_speed_10m === 'number' ? { windSpeed: current.wind_speed_10m } : {}),
      condition: describeWmo(current.weather_code),
    },
    days,
    source: LABEL,
  };
}
