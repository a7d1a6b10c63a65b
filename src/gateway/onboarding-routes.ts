import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Context, type Handler, Hono } from 'hono';
import { z } from 'zod';
import type { ModelEntry } from '../config/config-schema.js';
import { addModel, setEnvVar } from '../config/config-writer.js';
import { configPath, loadConfig, readConfigFile } from '../config/load-config.js';
import { parseYamlDocument } from '../config/parse-config.js';
import { DEFAULT_CONTEXT_WINDOW } from '../config/resolve-models.js';
import { copilotAuth } from '../llm/copilot-auth.js';
import type { EndpointConfig } from '../llm/endpoint.js';
import { listServerModels } from '../llm/list-server-models.js';
import { redactSecrets } from '../llm/provider-error.js';
import { findProviderPreset, PROVIDER_PRESETS, type ProviderPreset } from '../llm/provider-presets.js';
import { type EndpointTestResult, testEndpoint } from '../llm/test-endpoint.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { ConfigError } from '../util/config-error.js';
import { type Env, mergeEnv, readDotEnv } from '../util/interpolate.js';
import type * as Api from './api-types.js';
import { ENV_REFERENCE_REFUSED, hasEnvReference } from './has-env-reference.js';
import { problem } from './problem.js';
import { limitBody, validBody } from './route-input.js';
import { briefingDayNames, saveSettings } from './settings-routes.js';

export interface OnboardingRouteOptions {
  home: string;
  /** The process environment: `${VAR}`s resolve from it over `<home>/.env`, and it wins over `.env`. */
  env: Env;
  /** Told which model was added (never the key). */
  logger?: { info(fields: object, message: string): void };
}

/** One choice of the onboarding page. */
export interface OnboardingPreset {
  /** What `POST /api/onboarding` takes as `preset`: a provider preset's name, or `custom`. */
  id: string;
  label: string;
  /** Whether a key must be given (unless its variable is already set). */
  needsKey: boolean;
  /** The variable the key is stored under in `.env`. */
  keyVar?: string;
  baseUrl?: string;
  defaultModel?: string;
  /** A server on this machine (Ollama, LM Studio …). */
  local: boolean;
  /** Where to get a key or how to start the server. */
  docs: string;
}

const CUSTOM = 'custom';
const COPILOT_SIGN_IN =
  'GitHub Copilot signs in with GitHub instead of an API key: run `wren models login copilot` where Wren runs ' +
  '(it saves the token in .env), then choose Copilot again.';
const CUSTOM_KEY_VAR = 'WREN_CUSTOM_API_KEY';
/** Printable ASCII without spaces, quotes, backslashes or backticks, as every provider's keys are. */
const KEY_SHAPE = /^[!#-&(-[\]-_a-~]{8,4096}$/;
const HTTP_URL = /^https?:\/\/[^\s/]+/;
/** Onboarding tests wait this long for the first answer (a cold local model can be slow). */
const TEST_TIMEOUT_MS = 60_000;

const PRESETS: OnboardingPreset[] = [
  ...PROVIDER_PRESETS.map((preset) => ({
    id: preset.name,
    label: preset.label,
    // Copilot signs in with GitHub's device flow in the terminal (`wren models login copilot`), not a key.
    needsKey: preset.apiKeyEnv !== undefined && preset.auth !== 'copilot',
    ...(preset.apiKeyEnv && preset.auth !== 'copilot' ? { keyVar: preset.apiKeyEnv } : {}),
    baseUrl: preset.baseUrl,
    defaultModel: preset.exampleModel,
    local: preset.local,
    docs: preset.docs,
  })),
  {
    id: CUSTOM,
    label: 'Another OpenAI-compatible server',
    needsKey: false,
    keyVar: CUSTOM_KEY_VAR,
    local: false,
    docs: 'Give its base URL up to the version (https://host/v1) and a model id; a key only if it needs one.',
  },
];

const literal = (text: string) => !hasEnvReference(text);

/**
 * What is written to config.yaml as given (`model`, `baseUrl`) must stay literal there; the key goes to
 * `.env`, which expands nothing, and config.yaml names it only by the `${VAR}` chosen here.
 */
const request = z.strictObject({
  preset: z.string().trim().min(1).max(64),
  /** An empty string counts as no key (forms send one). */
  key: z.string().max(4096).optional(),
  model: z.string().trim().min(1).max(200).refine(literal, ENV_REFERENCE_REFUSED).optional(),
  baseUrl: z.string().trim().max(2048).refine(literal, ENV_REFERENCE_REFUSED).optional(),
  /** Save even when the test fails (e.g. a local server that is not running yet). */
  force: z.boolean().optional(),
});
type OnboardingRequest = z.infer<typeof request>;

/** `POST /api/onboarding/models`: the server whose model list to show while the owner fills the form in. */
const modelsRequest = z.strictObject({
  baseUrl: z.string().trim().min(1).max(2048).refine(literal, ENV_REFERENCE_REFUSED),
  key: z.string().max(4096).optional(),
});

/** `POST /api/onboarding/briefing`: the optional step after the model, turning the morning briefing on. */
const briefingRequest = z.strictObject({
  at: z.string().trim().min(1).max(16),
  days: z.enum(['daily', 'weekdays', 'weekends']).optional(),
});

/** How long the model list may take: the owner is waiting with the form open. */
const LIST_TIMEOUT_MS = 3000;

/**
 * Whether config.yaml names a model that is not switched off (read as written: a model whose `${VAR}` is
 * unset still counts). @throws ConfigError when the file is unreadable or not YAML.
 */
function hasModel(home: string): boolean | undefined {
  const file = configPath(home);
  const text = readConfigFile(file);
  if (text === undefined) return false;
  const models = (parseYamlDocument(text, file).toJS() as { models?: unknown } | null)?.models;
  if (!Array.isArray(models)) return false;
  return models.some((entry: unknown) => {
    const enabled = (entry as { enabled?: unknown } | null)?.enabled;
    return enabled !== false && enabled !== 'false';
  });
}

/** The first free name: `main`, then `model-2`, `model-3` … */
function freeName(taken: ReadonlySet<string>): string {
  if (!taken.has('main')) return 'main';
  for (let n = taken.size + 1; ; n++) if (!taken.has(`model-${n}`)) return `model-${n}`;
}

const bad = (c: Context, message: string) => c.json(problem('bad_request', message), 400);

/**
 * The key of a new model: the one given (checked for its shape, for a preset that takes one, for an environment
 * variable that would win over it) or the one `.env`/the environment holds already; an answer when neither will do.
 */
function resolveKey(
  c: Context,
  body: OnboardingRequest,
  preset: ProviderPreset | undefined,
  { home, env }: OnboardingRouteOptions,
): { key: string | undefined; keyVar: string | undefined; apiKey: string | undefined } | Response {
  const custom = preset === undefined;
  const key = body.key === '' ? undefined : body.key;
  const keyVar = custom ? CUSTOM_KEY_VAR : preset?.apiKeyEnv;
  const label = preset?.label ?? 'a custom server';
  if (key !== undefined && !KEY_SHAPE.test(key))
    return bad(
      c,
      'key: an API key is 8 or more printable characters without spaces, line breaks, quotes or ' +
        'backslashes; nothing was saved.',
    );
  if (key !== undefined && !keyVar) return bad(c, `key: ${label} takes no API key; leave it out.`);
  if (key !== undefined && preset?.auth === 'copilot') return bad(c, `key: ${COPILOT_SIGN_IN}`);
  if (key !== undefined && keyVar && env[keyVar] !== undefined && env[keyVar] !== key) {
    return c.json(
      problem(
        'conflict',
        `${keyVar} is set in Wren's environment, which wins over .env, so the key given would not be used. ` +
          `Unset ${keyVar} and restart Wren, or send no key to use the one in the environment.`,
      ),
      409,
    );
  }
  // A preset's variable may be set already (then no key is needed); a custom server uses only a key given.
  let existingKey: string | undefined;
  try {
    existingKey = preset?.apiKeyEnv
      ? mergeEnv(readDotEnv(home), env)[preset.apiKeyEnv] || undefined
      : undefined;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return c.json(problem('conflict', error.message), 409);
  }
  const apiKey = key ?? existingKey;
  if (preset?.auth === 'copilot' && !apiKey) return bad(c, COPILOT_SIGN_IN);
  if (preset?.apiKeyEnv && !apiKey)
    return bad(c, `key: ${label} needs an API key (it is stored in .env as ${preset.apiKeyEnv}).`);
  return { key, keyVar, apiKey };
}

/**
 * The endpoint a new model would be (named after the ones config.yaml has, tested before it is saved); an
 * answer when the model, the base URL or config.yaml does not allow one.
 */
function newEndpoint(
  c: Context,
  body: OnboardingRequest,
  preset: ProviderPreset | undefined,
  apiKey: string | undefined,
  { home, env }: OnboardingRouteOptions,
): { endpoint: EndpointConfig; name: string; model: string; baseUrl: string } | Response {
  const model = body.model ?? preset?.exampleModel;
  if (!model) return bad(c, 'model: give the model id the server serves.');
  const baseUrl = body.baseUrl?.replace(/\/+$/, '') || preset?.baseUrl;
  if (!baseUrl) return bad(c, 'baseUrl: give the server’s base URL up to the version, e.g. https://host/v1.');
  if (!HTTP_URL.test(baseUrl) || !URL.canParse(baseUrl))
    return bad(c, 'baseUrl: must be an http(s) URL such as https://api.example.com/v1.');

  // The config must load as it is: the new entry is validated with the whole file when it is added.
  let taken: Set<string>;
  try {
    taken = new Set(loadConfig(home, env).models.map((entry) => entry.name));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const message = redactSecrets(error.message, apiKey ? [apiKey] : []);
    return c.json(problem('conflict', `Fix config.yaml first: ${message}`), 409);
  }
  const name = freeName(taken);
  const endpoint: EndpointConfig = {
    name,
    protocol: preset?.protocol ?? 'openai',
    baseUrl,
    ...(apiKey ? { apiKey } : {}),
    model,
    tags: ['default'],
    priority: taken.size,
    contextWindow: preset?.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
    maxOutputTokens: 4096,
    enabled: true,
    ...(preset?.headers ? { headers: { ...preset.headers } } : {}),
    timeoutMs: TEST_TIMEOUT_MS,
    vision: false,
  };
  if (preset?.auth === 'copilot') {
    try {
      endpoint.copilot = copilotAuth(mergeEnv(readDotEnv(home), env), baseUrl !== preset.baseUrl);
    } catch (error) {
      return c.json(problem('conflict', (error as Error).message), 409);
    }
  }
  return { endpoint, name, model, baseUrl };
}

/** `POST /api/onboarding/models`: the models the server at `baseUrl` lists (its error, redacted, when it fails). */
function serverModels(): Handler {
  return async (c) => {
    const parsed = await validBody(c, modelsRequest);
    if (!parsed.ok) return parsed.response;
    const { baseUrl, key } = parsed.value;
    if (!HTTP_URL.test(baseUrl) || !URL.canParse(baseUrl))
      return bad(c, 'baseUrl: must be an http(s) URL such as http://127.0.0.1:8080/v1.');
    if (key !== undefined && key !== '' && !KEY_SHAPE.test(key))
      return bad(
        c,
        'key: an API key is 8 or more printable characters without spaces, quotes or backslashes.',
      );
    const listed = await listServerModels(
      { baseUrl, ...(key ? { apiKey: key } : {}), timeoutMs: LIST_TIMEOUT_MS },
      c.req.raw.signal,
    );
    if (!listed.ok) {
      const error = redactSecrets(listed.error, key ? [key] : []);
      return c.json({ models: [], error } satisfies Api.ServerModelList);
    }
    return c.json({ models: listed.models } satisfies Api.ServerModelList);
  };
}

/**
 * `GET /api/onboarding` (whether a model is needed, and the presets to choose from), `POST
 * /api/onboarding/models` (`{baseUrl, key?}` → `{models, error?}`: what that server lists), `POST
 * /api/onboarding/briefing` (`{at, days?}` → `{at, dayNames}`: the morning briefing turned on, validated and
 * written as `PATCH /api/settings` does; a bad time is a 400 and writes nothing) and `POST /api/onboarding`
 * (`{preset, key?, model?, baseUrl?, force?}`): builds the endpoint, tests it with one tiny request, and —
 * when it answered, or with `force` — stores the key in `<home>/.env` (0600) under the preset's variable and
 * adds the model to config.yaml as `api_key: ${VAR}`, never the key itself. The running app picks the new
 * model up by its reload of config.yaml. The key never appears in an answer, an error or the log. A `model`
 * or `baseUrl` holding `${` is refused (400) before anything is sent or written: see {@link hasEnvReference}.
 */
export function onboardingRoutes(options: OnboardingRouteOptions): Hono {
  const app = new Hono();
  const { home, env } = options;

  app.get('/api/onboarding', (c) => {
    try {
      const configured = hasModel(home);
      return c.json({ needed: !configured, presets: PRESETS } satisfies Api.Onboarding);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return c.json({ needed: false, presets: PRESETS, configError: error.message } satisfies Api.Onboarding);
    }
  });

  // Asks only the URL the owner typed (http(s), no redirects, a short deadline, a capped body): never a
  // host Wren picks itself. The key, when given, is sent to that server only and never echoed.
  app.post('/api/onboarding/models', limitBody(16 * 1024), serverModels());

  // The optional step after the model: the same validated write as Settings (`briefing.at`, `briefing.days`).
  // Skipping it calls nothing, so nothing is written.
  app.post('/api/onboarding/briefing', limitBody(4 * 1024), async (c) => {
    const parsed = await validBody(c, briefingRequest);
    if (!parsed.ok) return parsed.response;
    const { at, days } = parsed.value;
    const refusal = saveSettings(home, env, { briefingAt: at, ...(days ? { briefingDays: days } : {}) });
    if (refusal) return bad(c, refusal);
    const { briefing } = loadConfig(home, env);
    const saved = { at: briefing.at ?? '', dayNames: briefingDayNames(briefing) };
    options.logger?.info({ at: saved.at }, 'onboarding turned the morning briefing on');
    return c.json(saved satisfies Api.OnboardingBriefing);
  });

  app.post('/api/onboarding', limitBody(64 * 1024), async (c) => {
    const parsed = await validBody(c, request);
    if (!parsed.ok) return parsed.response;
    const body = parsed.value;
    const custom = body.preset.toLowerCase() === CUSTOM;
    const preset: ProviderPreset | undefined = custom ? undefined : findProviderPreset(body.preset);
    if (!custom && !preset)
      return bad(c, `preset must be one of ${PRESETS.map((choice) => choice.id).join(', ')}.`);

    const keys = resolveKey(c, body, preset, options);
    if (keys instanceof Response) return keys;
    const { key, keyVar, apiKey } = keys;

    const built = newEndpoint(c, body, preset, apiKey, options);
    if (built instanceof Response) return built;
    const { endpoint, name, model, baseUrl } = built;
    const result = await testEndpoint(endpoint, c.req.raw.signal);
    const test = testView(result, apiKey);
    if (!result.ok && !body.force)
      return c.json({ ok: false, saved: false, model: name, test } satisfies Api.OnboardingResult);

    const entry: ModelEntry = {
      name,
      ...(preset ? { provider: preset.name } : { protocol: 'openai' as const }),
      ...(baseUrl !== preset?.baseUrl ? { base_url: baseUrl } : {}),
      model,
      ...(keyVar && apiKey ? { api_key: `\${${keyVar}}` } : {}),
    };
    try {
      saveModel(home, entry, keyVar && key ? { name: keyVar, value: key } : undefined, env);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      const message = redactSecrets(error.message, apiKey ? [apiKey] : []);
      return c.json(problem('conflict', `${message}; nothing was saved`), 409);
    }
    options.logger?.info(
      { model: name, provider: preset?.name ?? CUSTOM, answered: result.ok },
      'onboarding saved a model',
    );
    return c.json({ ok: result.ok, saved: true, model: name, test } satisfies Api.OnboardingResult);
  });
  return app;
}

function testView(result: EndpointTestResult, apiKey: string | undefined) {
  const error = result.error ? redactSecrets(result.error, apiKey ? [apiKey] : []) : undefined;
  return { ok: result.ok, latencyMs: result.latencyMs, ...(error ? { error } : {}) };
}

/**
 * Stores the key (when one was given) and adds the entry; when adding fails, `.env` is put back as it was.
 * Synchronous from the first read to the last write, so requests of this process cannot interleave here.
 * @throws ConfigError from addModel (a name taken meanwhile, an invalid entry).
 */
function saveModel(
  home: string,
  entry: ModelEntry,
  secret: { name: string; value: string } | undefined,
  env: Env,
): void {
  const envFile = join(home, '.env');
  const before = readConfigFile(envFile);
  if (secret) setEnvVar(home, secret.name, secret.value);
  try {
    addModel(home, entry, env);
  } catch (error) {
    if (secret) {
      if (before === undefined) rmSync(envFile, { force: true });
      else writeFileAtomic(envFile, before, 0o600);
    }
    throw error;
  }
}
