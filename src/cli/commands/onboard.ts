import * as prompts from '@clack/prompts';
import { briefingSectionSchema } from '../../config/briefing-config.js';
import type { ModelEntry } from '../../config/config-schema.js';
import { addModel, setEnvVar } from '../../config/config-writer.js';
import { ensureHome } from '../../config/home.js';
import { loadConfig } from '../../config/load-config.js';
import { saveSettings } from '../../gateway/settings-routes.js';
import { COPILOT_TOKEN_ENV, copilotAuth } from '../../llm/copilot-auth.js';
import type { CopilotAuth, EndpointConfig, Protocol } from '../../llm/endpoint.js';
import { listServerModels } from '../../llm/list-server-models.js';
import { type LocalModelServer, probeLocalModels } from '../../llm/probe-local-models.js';
import { PROVIDER_PRESETS, type ProviderPreset } from '../../llm/provider-presets.js';
import { testEndpoint } from '../../llm/test-endpoint.js';
import { mergeEnv, readDotEnv } from '../../util/interpolate.js';
import { signInSettings, signInToCopilot } from '../copilot-sign-in.js';
import { plural } from '../plural.js';
import { EXIT } from '../report-failure.js';
import { wren } from '../wren-command.js';

type Choice =
  | { kind: 'local'; server: LocalModelServer }
  | { kind: 'preset'; preset: ProviderPreset }
  | { kind: 'custom' };

class Cancelled extends Error {}

function answer<T>(value: T): Exclude<T, symbol> {
  if (prompts.isCancel(value)) throw new Cancelled();
  return value as Exclude<T, symbol>;
}

async function chooseProvider(local: LocalModelServer[]): Promise<Choice> {
  const options: Parameters<typeof prompts.select<Choice>>[0]['options'] = [
    ...local.map((server) => ({
      value: { kind: 'local' as const, server },
      label: `${server.preset} on ${server.baseUrl}`,
      hint: `running now · ${plural(server.models.length, 'model')}`,
    })),
    ...PROVIDER_PRESETS.map((preset) => ({
      value: { kind: 'preset' as const, preset },
      label: preset.label,
      hint:
        preset.auth === 'copilot'
          ? 'sign in with GitHub'
          : preset.apiKeyEnv
            ? `key: ${preset.apiKeyEnv}`
            : 'no key',
    })),
    { value: { kind: 'custom' }, label: 'Another server (any OpenAI-, Anthropic- or Gemini-compatible URL)' },
  ];
  return answer(await prompts.select<Choice>({ message: 'Which model provider?', options, maxItems: 12 }));
}

/** Where the key of "another server" is saved, when it needs one. */
const CUSTOM_KEY_ENV = 'WREN_CUSTOM_API_KEY';
/** Picked from the server's list to type a model id it does not list. */
const TYPE_ANOTHER = '\u0000another';

/**
 * "Another server": protocol, base URL, an optional API key (a local server needs none; Enter skips it) and
 * the model — picked from the server's own list (`GET <base>/models`, 3 s) when it is OpenAI-compatible and
 * answers, else typed.
 */
async function describeCustomServer() {
  const protocol = answer(
    await prompts.select({
      message: 'Wire protocol',
      options: [
        { value: 'openai' as const, label: 'OpenAI chat completions' },
        { value: 'anthropic' as const, label: 'Anthropic messages' },
        { value: 'gemini' as const, label: 'Gemini' },
      ],
    }),
  );
  const baseUrl = answer(
    await prompts.text({
      message: 'Base URL (up to the version, e.g. http://127.0.0.1:8080/v1)',
      validate: (v) => (/^https?:\/\/\S+$/.test(v ?? '') ? undefined : 'an http(s) URL'),
    }),
  );
  const key = answer(
    await prompts.password({
      message: `API key, if the server needs one (Enter for none; saved to .env as ${CUSTOM_KEY_ENV})`,
    }),
  )?.trim();
  const apiKey = key ? key : undefined;
  const model = await chooseServerModel({ protocol, baseUrl, ...(apiKey ? { apiKey } : {}) });
  return { protocol, baseUrl, model, apiKey, newKey: apiKey };
}

async function chooseServerModel(server: { protocol: Protocol; baseUrl: string; apiKey?: string }) {
  const typed = async () =>
    answer(await prompts.text({ message: 'Model id', validate: (v) => (v ? undefined : 'required') }));
  if (server.protocol !== 'openai') return typed();
  const spin = prompts.spinner();
  spin.start('Asking the server which models it serves');
  const listed = await listServerModels({
    baseUrl: server.baseUrl,
    ...(server.apiKey ? { apiKey: server.apiKey } : {}),
  });
  if (!listed.ok || listed.models.length === 0) {
    spin.stop(listed.ok ? 'The server lists no models' : listed.error);
    return typed();
  }
  spin.stop(`The server serves ${plural(listed.models.length, 'model')}`);
  const picked = answer(
    await prompts.select({
      message: 'Which model?',
      options: [
        ...listed.models.map((id) => ({ value: id, label: id })),
        { value: TYPE_ANOTHER, label: 'another model id (type it)' },
      ],
      maxItems: 12,
    }),
  );
  return picked === TYPE_ANOTHER ? typed() : picked;
}

/**
 * The GitHub token for Copilot: the one saved before (environment or .env), else a new sign-in through the
 * device flow (returned as `newKey`, saved only with the model).
 */
async function copilotToken(home: string, env: NodeJS.ProcessEnv) {
  const merged = mergeEnv(readDotEnv(home), env);
  const copilot: CopilotAuth = copilotAuth(merged, false);
  const saved = merged[COPILOT_TOKEN_ENV];
  if (saved) {
    prompts.log.info(`Using the GitHub token in ${COPILOT_TOKEN_ENV} (from an earlier sign-in).`);
    return { copilot, apiKey: saved, newKey: undefined };
  }
  const settings = signInSettings(home, {}, env);
  const signIn = await signInToCopilot({ settings, say: (line) => prompts.log.info(line) });
  prompts.log.success('Signed in; this GitHub account can use Copilot.');
  return { copilot, apiKey: signIn.githubToken, newKey: signIn.githubToken };
}

async function describeEndpoint(choice: Choice, options: { env: NodeJS.ProcessEnv; home: string }) {
  const { env } = options;
  let protocol: Protocol = 'openai';
  let baseUrl: string;
  let model: string;
  let keyEnv: string | undefined;
  let provider: string | undefined;
  let contextWindow = 32_768;
  let headers: Record<string, string> | undefined;
  let copilot: CopilotAuth | undefined;
  let apiKey: string | undefined;
  let newKey: string | undefined;
  if (choice.kind === 'local') {
    provider = choice.server.preset;
    baseUrl = choice.server.baseUrl;
    model = answer(
      await prompts.select({
        message: 'Which model?',
        options: choice.server.models.map((id) => ({ value: id, label: id })),
      }),
    );
  } else if (choice.kind === 'preset') {
    ({ protocol, baseUrl, contextWindow } = choice.preset);
    provider = choice.preset.name;
    keyEnv = choice.preset.apiKeyEnv;
    headers = choice.preset.headers;
    prompts.log.info(choice.preset.docs);
    if (choice.preset.auth === 'copilot')
      ({ copilot, apiKey, newKey } = await copilotToken(options.home, env));
    model = answer(
      await prompts.text({
        message: 'Model id',
        placeholder: choice.preset.exampleModel,
        defaultValue: choice.preset.exampleModel,
      }),
    );
  } else {
    ({ protocol, baseUrl, model, apiKey, newKey } = await describeCustomServer());
    if (newKey) keyEnv = CUSTOM_KEY_ENV;
  }
  apiKey ??= keyEnv ? env[keyEnv] : undefined;
  if (keyEnv && !apiKey && choice.kind !== 'custom') {
    newKey = answer(
      await prompts.password({
        message: `API key (saved to .env as ${keyEnv})`,
        validate: (v) => (v ? undefined : 'required'),
      }),
    );
    apiKey = newKey;
  }
  return {
    protocol,
    baseUrl,
    model,
    keyEnv,
    provider,
    contextWindow,
    apiKey,
    newKey,
    headers,
    copilot,
    custom: choice.kind === 'custom',
  };
}

const briefingTime = (text: string) => briefingSectionSchema.shape.at.safeParse(text).success;

/**
 * The optional step after the model: a morning briefing at a time (and weekdays or every day), written to
 * `briefing:` in config.yaml as Settings writes it. Enter (or Ctrl+C: the model is saved already) skips it
 * and writes nothing. Returns what was turned on for the closing line (` and a morning briefing (…)`), or ''.
 */
async function offerBriefing(home: string): Promise<string> {
  try {
    const at = answer(
      await prompts.text({
        message: 'Would you like a morning briefing? Time (e.g. 07:30) or Enter to skip',
        validate: (v) => (!v?.trim() || briefingTime(v.trim()) ? undefined : 'a time like 07:30, or empty'),
      }),
    )?.trim();
    if (!at) return '';
    const days = answer(
      await prompts.select({
        message: 'On which days?',
        options: [
          { value: 'weekdays' as const, label: 'Weekdays' },
          { value: 'daily' as const, label: 'Every day' },
        ],
      }),
    );
    const refusal = saveSettings(home, process.env, { briefingAt: at, briefingDays: days });
    if (refusal) {
      prompts.log.warn(`The briefing was not saved: ${refusal}`);
      return '';
    }
    return ` and a morning briefing (${days === 'daily' ? 'every day' : 'weekdays'} at ${at.padStart(5, '0')})`;
  } catch (error) {
    if (error instanceof Cancelled) return '';
    throw error;
  }
}

/**
 * `wren onboard`: pick a provider and model, test it, then save it to config.yaml (and the key to .env);
 * then, optionally, a morning briefing.
 */
export async function runOnboard(options: { home: string }): Promise<number> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    process.stderr.write(
      'wren: onboard asks questions and needs a terminal; edit config.yaml instead (see README)\n',
    );
    return EXIT.usage;
  }
  const { home } = options;
  ensureHome(home);
  const existing = loadConfig(home).models.map((model) => model.name);
  try {
    prompts.intro('Wren onboarding');
    const spin = prompts.spinner();
    spin.start('Looking for model servers on this machine');
    const local = (await probeLocalModels()).filter((server) => server.models.length > 0);
    spin.stop(
      local.length
        ? `Found ${local.map((server) => server.preset).join(', ')}`
        : 'No local model server found',
    );
    for (;;) {
      const details = await describeEndpoint(await chooseProvider(local), { env: process.env, home });
      const suggested = existing.includes('main') ? `model-${existing.length + 1}` : 'main';
      const name =
        answer(
          await prompts.text({
            message: 'Name for this model in config.yaml',
            defaultValue: suggested,
            placeholder: suggested,
            validate: (v) => (existing.includes(v || suggested) ? 'that name is taken' : undefined),
          }),
        ) || suggested;
      const endpoint: EndpointConfig = {
        name,
        protocol: details.protocol,
        baseUrl: details.baseUrl,
        ...(details.apiKey ? { apiKey: details.apiKey } : {}),
        model: details.model,
        tags: ['default'],
        priority: existing.length,
        contextWindow: details.contextWindow,
        maxOutputTokens: 4096,
        enabled: true,
        timeoutMs: 60_000,
        vision: false,
        ...(details.headers ? { headers: { ...details.headers } } : {}),
        ...(details.copilot ? { copilot: details.copilot } : {}),
      };
      spin.start(`Testing ${details.model}`);
      const result = await testEndpoint(endpoint);
      spin.stop(
        result.ok ? `It answered in ${result.latencyMs} ms` : `It failed: ${result.error ?? 'unknown error'}`,
      );
      if (!result.ok && !answer(await prompts.confirm({ message: 'Save it anyway?', initialValue: false }))) {
        if (answer(await prompts.confirm({ message: 'Try another provider or model?' }))) continue;
        prompts.cancel('Nothing saved.');
        return EXIT.failed;
      }
      if (details.newKey && details.keyEnv) setEnvVar(home, details.keyEnv, details.newKey);
      const entry: ModelEntry = details.custom
        ? {
            name,
            protocol: details.protocol,
            base_url: details.baseUrl,
            model: details.model,
            ...(details.keyEnv ? { api_key: `\${${details.keyEnv}}` } : {}),
          }
        : {
            name,
            provider: details.provider!,
            model: details.model,
            ...(details.provider === undefined ? { base_url: details.baseUrl } : {}),
          };
      if (
        details.provider &&
        details.baseUrl !== PROVIDER_PRESETS.find((preset) => preset.name === details.provider)?.baseUrl
      ) {
        entry.base_url = details.baseUrl;
      }
      addModel(home, entry);
      prompts.outro(
        `Saved "${name}"${await offerBriefing(home)} to ${home}/config.yaml. Chat with \`${wren()} chat\`, or start the gateway with \`${wren()} start\`.`,
      );
      return EXIT.ok;
    }
  } catch (error) {
    if (error instanceof Cancelled) {
      prompts.cancel('Cancelled; nothing saved.');
      return EXIT.failed;
    }
    throw error;
  }
}
