import { Hono } from 'hono';
import type { EndpointConfig, Protocol } from '../llm/endpoint.js';
import type { EndpointPool } from '../llm/endpoint-pool.js';
import { endpointSecrets, redactSecrets } from '../llm/provider-error.js';
import { findProviderPresetByBaseUrl } from '../llm/provider-presets.js';
import { testEndpoint } from '../llm/test-endpoint.js';
import type * as Api from './api-types.js';
import { problem } from './problem.js';

export interface ModelRouteOptions {
  /** The endpoints in force (config.yaml's, or the local server found when it names none), keys resolved. */
  endpoints: () => readonly EndpointConfig[];
  /** Cool-downs and what real calls did (the same pool that answers the turns). */
  pool: Pick<EndpointPool, 'status' | 'health'>;
  /** The provider preset config.yaml names for a model (`provider:`), when it names one. */
  providerOf?: (name: string) => string | undefined;
  /** Said when Wren runs without a configured model (the local server in use, or how to add one). */
  note?: () => string | undefined;
}

/**
 * - `ready`: enabled, and its last call or test (if any) went well;
 * - `cooling`: skipped after a rate limit until `cooldownUntil`;
 * - `failing`: its last call or test failed (`lastError` says how);
 * - `disabled`: `enabled: false` in config.yaml.
 */
export type ModelState = 'ready' | 'cooling' | 'failing' | 'disabled';

/** One model as `GET /api/models` shows it. Never carries a key, a header value or URL credentials. */
export interface ModelView {
  name: string;
  /** The preset it uses (`openai`, `ollama` …), or `custom` for a server named by URL only. */
  provider: string;
  protocol: Protocol;
  model: string;
  baseUrl?: string;
  tags: string[];
  priority: number;
  enabled: boolean;
  state: ModelState;
  /** Epoch ms. */
  cooldownUntil?: number;
  /** Of the last successful test (`POST /api/models/:name/test`) in this process. */
  latencyMs?: number;
  /** The most recent failure of a call or test in this process (keys redacted), and when (epoch ms). */
  lastError?: string;
  lastErrorAt?: number;
  /** When the last test ran (epoch ms). */
  testedAt?: number;
}

interface TestRecord {
  at: number;
  ok: boolean;
  latencyMs: number;
  error?: string;
}

/** A base URL fit to show: no user info, query or fragment (some servers take a key there), no secrets. */
function safeBaseUrl(endpoint: EndpointConfig): string | undefined {
  if (!URL.canParse(endpoint.baseUrl)) return undefined;
  const url = new URL(endpoint.baseUrl);
  const shown = `${url.protocol}//${url.host}${url.pathname}`.replace(/\/+$/, '');
  return redactSecrets(shown, endpointSecrets(endpoint));
}

const NO_MODEL =
  'No model is configured. Add one on the onboarding page (POST /api/onboarding) or with `wren onboard`.';

/**
 * `GET /api/models` (every endpoint in force with its cool-down and what this process saw of it) and
 * `POST /api/models/:name/test` (one tiny request straight to that endpoint, as `wren models test`). Test
 * results are remembered in memory for the listing; nothing is written.
 */
export function modelRoutes(options: ModelRouteOptions): Hono {
  const app = new Hono();
  const tests = new Map<string, TestRecord>();

  const view = (endpoint: EndpointConfig, cooling: number | undefined, now: number): ModelView => {
    const seen = options.pool.health()[endpoint.name] ?? {};
    const test = tests.get(endpoint.name);
    // The newest failure and the newest success, whether from a real call or a test.
    const failure = [
      seen.lastErrorAt !== undefined ? { at: seen.lastErrorAt, error: seen.lastError ?? '' } : undefined,
      test && !test.ok ? { at: test.at, error: test.error ?? 'The test failed.' } : undefined,
    ]
      .filter((item) => item !== undefined)
      .sort((a, b) => b.at - a.at)[0];
    const success = Math.max(seen.lastOkAt ?? 0, test?.ok ? test.at : 0);
    const state: ModelState = !endpoint.enabled
      ? 'disabled'
      : cooling !== undefined && cooling > now
        ? 'cooling'
        : failure && failure.at >= success
          ? 'failing'
          : 'ready';
    const baseUrl = safeBaseUrl(endpoint);
    const secrets = endpointSecrets(endpoint);
    return {
      name: endpoint.name,
      provider:
        options.providerOf?.(endpoint.name) ??
        findProviderPresetByBaseUrl(endpoint.baseUrl)?.name ??
        'custom',
      protocol: endpoint.protocol,
      model: endpoint.model,
      ...(baseUrl ? { baseUrl } : {}),
      tags: [...endpoint.tags],
      priority: endpoint.priority,
      enabled: endpoint.enabled,
      state,
      ...(cooling !== undefined ? { cooldownUntil: cooling } : {}),
      ...(test?.ok ? { latencyMs: test.latencyMs } : {}),
      ...(failure ? { lastError: redactSecrets(failure.error, secrets), lastErrorAt: failure.at } : {}),
      ...(test ? { testedAt: test.at } : {}),
    };
  };

  app.get('/api/models', (c) => {
    const endpoints = options.endpoints();
    const names = new Set(endpoints.map((endpoint) => endpoint.name));
    for (const name of tests.keys()) if (!names.has(name)) tests.delete(name);
    const cooling = new Map(options.pool.status().map((status) => [status.name, status.coolingUntil]));
    const now = Date.now();
    const models = endpoints.map((endpoint) => view(endpoint, cooling.get(endpoint.name), now));
    const note = options.note?.() ?? (endpoints.length === 0 ? NO_MODEL : undefined);
    return c.json({ models, ...(note ? { note } : {}) } satisfies Api.ModelList);
  });

  app.post('/api/models/:name/test', async (c) => {
    const name = c.req.param('name');
    const endpoint = options.endpoints().find((candidate) => candidate.name === name);
    if (!endpoint) return c.json(problem('not_found', `There is no model named "${name}".`), 404);
    const result = await testEndpoint(endpoint, c.req.raw.signal);
    const error = result.error ? redactSecrets(result.error, endpointSecrets(endpoint)) : undefined;
    tests.set(name, {
      at: Date.now(),
      ok: result.ok,
      latencyMs: result.latencyMs,
      ...(error ? { error } : {}),
    });
    return c.json({
      ok: result.ok,
      latencyMs: result.latencyMs,
      ...(error ? { error } : {}),
    } satisfies Api.ModelTest);
  });
  return app;
}
