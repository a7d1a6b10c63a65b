import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { EndpointConfig } from '../llm/endpoint.js';
import { ConfigError } from '../util/config-error.js';
import { type Env, mergeEnv, readDotEnv } from '../util/interpolate.js';
import { parseConfig } from './parse-config.js';
import type { PresetSource } from './preset-source.js';
import type { WrenConfig } from './wren-config.js';

/** Path of the config file inside a Wren home. */
export function configPath(home: string): string {
  return join(home, 'config.yaml');
}

/** Reads a file as text; a missing file is `undefined`. @throws ConfigError when it exists but is unreadable. */
export function readConfigFile(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(
      `${file}: cannot be read (${(error as Error).message}); check its owner and permissions`,
      {
        file,
        cause: error,
      },
    );
  }
}

/**
 * Loads `<home>/config.yaml`, resolving `${VAR}` from `env` (default `process.env`) merged over `<home>/.env`
 * (the environment wins), validating it and applying provider presets. A missing config.yaml means all
 * defaults (no models). Reads files synchronously; safe to call repeatedly.
 * @returns a deep-frozen config: mutating it throws a TypeError.
 * @throws ConfigError with one precise message (file, key path, problem, fix) for any problem.
 */
export function loadConfig(
  home: string,
  env: Env = process.env,
  options: { presets?: PresetSource } = {},
): WrenConfig {
  const absoluteHome = resolve(home);
  const file = configPath(absoluteHome);
  const text = readConfigFile(file) ?? '';
  const merged = mergeEnv(readDotEnv(absoluteHome), env);
  return parseConfig(text, {
    home: absoluteHome,
    file,
    env: merged,
    ...(options.presets ? { presets: options.presets } : {}),
  });
}

/**
 * The models of `config` as endpoint configurations for the endpoint pool (timeout in milliseconds), disabled
 * ones included (the pool skips them). Returns fresh objects on every call. Pure.
 */
export function resolveEndpoints(config: WrenConfig): EndpointConfig[] {
  return config.models.map((model) => ({
    name: model.name,
    protocol: model.protocol,
    baseUrl: model.baseUrl,
    ...(model.apiKey !== undefined ? { apiKey: model.apiKey } : {}),
    model: model.model,
    tags: [...model.tags],
    priority: model.priority,
    contextWindow: model.contextWindow,
    maxOutputTokens: model.maxOutputTokens,
    enabled: model.enabled,
    ...(model.headers ? { headers: { ...model.headers } } : {}),
    timeoutMs: Math.round(model.timeoutSeconds * 1000),
    vision: model.vision,
    ...(model.copilot ? { copilot: { ...model.copilot } } : {}),
  }));
}
