import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolContext } from '../../../test/support/tool-context.js';
import type { ToolContext, ToolResult } from '../../agent/tool.js';
import { defaultWebConfig, type WebConfig } from '../web-config.js';
import { createWeatherTool } from './weather.js';

const ctx: ToolContext = toolContext();

const places = [
  {
    name: 'Paris',
    latitude: 33.66,
    longitude: -95.55,
    country: 'United States',
    admin1: 'Texas',
    country_code: 'US',
  },
  {
    name: 'Paris',
    latitude: 48.85,
    longitude: 2.35,
    country: 'France',
    admin1: 'Île-de-France',
    country_code: 'FR',
  },
];

let server: Server;
let base: string;
const paths: string[] = [];

function openMeteoForecast(params: URLSearchParams) {
  const days = Number(params.get('forecast_days'));
  const imperial = params.get('temperature_unit') === 'fahrenheit';
  return {
    latitude: Number(params.get('latitude')),
    longitude: Number(params.get('longitude')),
    timezone: 'Europe/Paris',
    current_units: { temperature_2m: imperial ? '°F' : '°C' },
    current: {
      time: '2026-05-01T14:00',
      temperature_2m: imperial ? 64.4 : 18,
      apparent_temperature: imperial ? 62.6 : 17,
      relative_humidity_2m: 55,
      weather_code: 2,
      wind_speed_10m: 12.4,
    },
    daily: {
      time: Array.from({ length: days }, (_, i) => `2026-05-0${i + 1}`),
      weather_code: Array.from({ length: days }, (_, i) => [61, 0, 95, 3, 71, 45, 80][i]),
      temperature_2m_max: Array.from({ length: days }, (_, i) => 20 + i),
      temperature_2m_min: Array.from({ length: days }, (_, i) => 10 + i),
      precipitation_sum: Array.from({ length: days }, (_, i) => (i === 0 ? 3.2 : 0)),
      precipitation_probability_max: Array.from({ length: days }, (_, i) => (i === 0 ? 80 : 5)),
    },
  };
}

function owmForecast() {
  const start = Date.UTC(2026, 4, 1, 0, 0, 0) / 1000;
  return {
    cod: '200',
    list: Array.from({ length: 16 }, (_, i) => ({
      dt: start + i * 3 * 3600,
      main: { temp: 15, temp_min: 10 + (i % 8), temp_max: 12 + (i % 8) },
      weather: [{ description: i < 8 ? 'light rain' : 'clear sky' }],
      pop: i < 8 ? 0.6 : 0,
      ...(i < 8 ? { rain: { '3h': 0.5 } } : {}),
    })),
    city: { name: 'Berlin', timezone: 7200 },
  };
}

beforeAll(async () => {
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    paths.push(url.pathname);
    const json = (value: unknown, status = 200) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    const params = url.searchParams;
    if (url.pathname === '/v1/search') {
      const name = params.get('name');
      return json(
        name === 'Paris' ? { results: places, generationtime_ms: 0.5 } : { generationtime_ms: 0.5 },
      );
    }
    if (url.pathname === '/v1/forecast') {
      if (params.get('latitude') === '89.9')
        return json({ error: true, reason: 'Latitude must be in range' }, 400);
      return json(openMeteoForecast(params));
    }
    if (params.get('appid') !== 'owm-secret') return json({ cod: 401, message: 'Invalid API key' }, 401);
    if (url.pathname === '/geo/1.0/direct') {
      return json(
        params.get('q') === 'Berlin'
          ? [{ name: 'Berlin', lat: 52.52, lon: 13.4, country: 'DE', state: 'Berlin' }]
          : [],
      );
    }
    if (url.pathname === '/data/2.5/weather') {
      return json({
        name: 'Berlin',
        main: { temp: 16.5, feels_like: 15.9, humidity: 70 },
        wind: { speed: 5 },
        weather: [{ description: 'broken clouds' }],
      });
    }
    if (url.pathname === '/data/2.5/forecast') return json(owmForecast());
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => server.close());

function run(weather: Partial<WebConfig['weather']>, args: Record<string, unknown>): Promise<ToolResult> {
  const defaults = defaultWebConfig();
  return createWeatherTool({ ...defaults.weather, ...weather }, defaults.fetch, {
    openMeteo: { geocoding: base, forecast: base },
    openWeatherMapUrl: base,
  }).execute(args, ctx, new AbortController().signal);
}

describe('weather (Open-Meteo)', () => {
  it('geocodes a place, preferring the named country, and gives now plus one line per day', async () => {
    const result = await run({}, { location: 'Paris, France', days: 3 });
    expect(result.isError).toBeFalsy();
    expect(result.content).toBe(
      [
        'Weather for Paris, Île-de-France, France (48.9, 2.4):',
        'Now: 18°C (feels like 17°C) partly cloudy, humidity 55%, wind 12.4 km/h',
        '2026-05-01: 10 to 20°C, light rain, 3.2 mm, 80% chance of precipitation',
        '2026-05-02: 11 to 21°C, clear sky, 5% chance of precipitation',
        '2026-05-03: 12 to 22°C, thunderstorm, 5% chance of precipitation',
        'Source: Open-Meteo',
      ].join('\n'),
    );
  });

  it('uses imperial units and coordinates without geocoding', async () => {
    const before = paths.filter((path) => path === '/v1/search').length;
    const result = await run({ units: 'imperial' }, { location: '48.85, 2.35', days: 1 });
    expect(result.content).toContain(
      'Now: 64.4°F (feels like 62.6°F) partly cloudy, humidity 55%, wind 12.4 mph',
    );
    expect(result.content).toContain('2026-05-01: 10 to 20°F');
    expect(paths.filter((path) => path === '/v1/search').length).toBe(before);
  });

  it('explains an unknown place, a country that does not match, and an API refusal', async () => {
    const unknown = await run({}, { location: 'Atlantis' });
    expect(unknown).toMatchObject({ isError: true });
    expect(unknown.content).toMatch(/No place called "Atlantis" was found.*lat,lon/);
    const wrongCountry = await run({}, { location: 'Paris, Narnia' });
    expect(wrongCountry.content).toMatch(/No place called "Paris, Narnia"/);
    const refused = await run({}, { location: '89.9, 0' });
    expect(refused.content).toBe('Open-Meteo refused the request: Latitude must be in range.');
    const outOfRange = await run({}, { location: '99, 0' });
    expect(outOfRange.content).toMatch(/No place called "99, 0"/);
    const bad = await run({}, { location: '' });
    expect(bad.isError).toBe(true);
  });
});

describe('weather (OpenWeatherMap)', () => {
  it('uses OpenWeatherMap when a key is set, grouping the 3-hour forecast into days', async () => {
    const result = await run({ openWeatherMapKey: 'owm-secret' }, { location: 'Berlin', days: 2 });
    expect(result.isError).toBeFalsy();
    const lines = result.content.split('\n');
    expect(lines[0]).toBe('Weather for Berlin, Berlin, DE (52.5, 13.4):');
    expect(lines[1]).toBe('Now: 16.5°C (feels like 15.9°C) broken clouds, humidity 70%, wind 18 km/h');
    expect(lines[2]).toMatch(/^2026-05-01: 10 to \d+°C, light rain, [\d.]+ mm, 60% chance of precipitation$/);
    expect(lines[3]).toMatch(/^2026-05-02: /);
    expect(lines.at(-1)).toBe('Source: OpenWeatherMap');
  });

  it('reports a rejected key and an unknown place without revealing the key', async () => {
    const rejected = await run({ openWeatherMapKey: 'wrong-key' }, { location: 'Berlin' });
    expect(rejected.content).toMatch(/rejected the API key.*web\.weather\.openweathermap_key/);
    expect(rejected.content).not.toContain('wrong-key');
    const unknown = await run({ openWeatherMapKey: 'owm-secret' }, { location: 'Atlantis' });
    expect(unknown.content).toMatch(/No place called "Atlantis"/);
  });

  it('is a safe, non-core tool', () => {
    const defaults = defaultWebConfig();
    expect(createWeatherTool(defaults.weather, defaults.fetch)).toMatchObject({
      name: 'weather',
      risk: 'safe',
    });
    expect(createWeatherTool(defaults.weather, defaults.fetch).core).toBeFalsy();
  });
});
