import * as z from 'zod';
import { parseAllowEntry } from './net/allow-list.js';

/** Turns `"42"` (typically the result of `${VAR}`) into 42; other values pass through. */
function fromString(value: unknown): unknown {
  return typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;
}

const integer = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess(fromString, z.number().int().min(min).max(max));
const seconds = (max: number) => z.preprocess(fromString, z.number().positive().max(max));
/** An empty string (e.g. `${BRAVE_API_KEY:-}` with the variable unset) counts as absent. */
const optionalText = z
  .string()
  .trim()
  .optional()
  .transform((text) => (text ? text : undefined));

const allowEntry = z.string().superRefine((text, ctx) => {
  const entry = parseAllowEntry(text);
  if (typeof entry === 'string') ctx.addIssue({ code: 'custom', message: entry });
});

export const SEARCH_PROVIDERS = ['brave', 'tavily', 'searxng', 'duckduckgo'] as const;
export type SearchProvider = (typeof SEARCH_PROVIDERS)[number];

const DEFAULT_USER_AGENT = 'Mozilla/5.0 (compatible; Wren personal assistant)';

const fetchSchema = z.strictObject({
  allow: z.array(allowEntry).default([]),
  max_bytes: integer(1024).default(5 * 1024 * 1024),
  max_chars: integer(1000).default(50_000),
  /** Seconds for the whole fetch. */
  timeout: seconds(600).default(30),
  /** Seconds for each connect (DNS included). */
  connect_timeout: seconds(120).default(10),
  max_redirects: integer(0, 20).default(5),
  user_agent: z.string().trim().min(1).default(DEFAULT_USER_AGENT),
});

const searchSchema = z
  .strictObject({
    provider: z.enum(SEARCH_PROVIDERS).optional(),
    api_key: optionalText,
    base_url: z
      .string()
      .trim()
      .refine((text) => /^https?:\/\/[^\s/]+/.test(text) && URL.canParse(text), {
        message: 'must be an http(s) URL such as https://searx.example.org',
      })
      .transform((text) => text.replace(/\/+$/, ''))
      .optional(),
    max_results: integer(1, 20).default(5),
  })
  .superRefine((search, ctx) => {
    if (search.provider === 'searxng' && !search.base_url) {
      ctx.addIssue({
        code: 'custom',
        path: ['base_url'],
        message: 'searxng needs base_url, the address of your SearXNG instance (e.g. http://localhost:8888)',
      });
    }
  });

const weatherSchema = z.strictObject({
  openweathermap_key: optionalText,
  units: z.enum(['metric', 'imperial']).default('metric'),
});

/** The `web:` section of config.yaml (snake_case, strict, every key defaulted). */
export const webSectionSchema = z.strictObject({
  fetch: fetchSchema.prefault({}),
  search: searchSchema.prefault({}),
  weather: weatherSchema.prefault({}),
});

export type WebSection = z.output<typeof webSectionSchema>;

/** The `web:` section as the tools use it (camelCase; times in milliseconds). */
export interface WebConfig {
  readonly fetch: {
    readonly allow: readonly string[];
    readonly maxBytes: number;
    readonly maxChars: number;
    readonly timeoutMs: number;
    readonly connectTimeoutMs: number;
    readonly maxRedirects: number;
    readonly userAgent: string;
  };
  readonly search: {
    readonly provider?: SearchProvider;
    readonly apiKey?: string;
    readonly baseUrl?: string;
    readonly maxResults: number;
  };
  readonly weather: {
    readonly openWeatherMapKey?: string;
    readonly units: 'metric' | 'imperial';
  };
}

/** Maps the parsed section to {@link WebConfig}. Pure. */
export function toWebConfig(parsed: WebSection): WebConfig {
  const { fetch, search, weather } = parsed;
  return {
    fetch: {
      allow: [...fetch.allow],
      maxBytes: fetch.max_bytes,
      maxChars: fetch.max_chars,
      timeoutMs: Math.round(fetch.timeout * 1000),
      connectTimeoutMs: Math.round(fetch.connect_timeout * 1000),
      maxRedirects: fetch.max_redirects,
      userAgent: fetch.user_agent,
    },
    search: {
      ...(search.provider ? { provider: search.provider } : {}),
      ...(search.api_key ? { apiKey: search.api_key } : {}),
      ...(search.base_url ? { baseUrl: search.base_url } : {}),
      maxResults: search.max_results,
    },
    weather: {
      ...(weather.openweathermap_key ? { openWeatherMapKey: weather.openweathermap_key } : {}),
      units: weather.units,
    },
  };
}

/** The configuration with every default (what an absent `web:` section means). */
export function defaultWebConfig(): WebConfig {
  return toWebConfig(webSectionSchema.parse({}));
}
