import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { ConfigError, formatKeyPath } from './config-error.js';

/** Environment variables as Node exposes them. */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * Reads `<home>/.env` (dotenv syntax, parsed by `util.parseEnv`). A missing file is an empty set.
 * @throws ConfigError when the file exists but cannot be read.
 */
export function readDotEnv(home: string): Record<string, string> {
  const file = join(home, '.env');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigError(
      `${file}: cannot be read (${(error as Error).message}); check its owner and permissions`,
      {
        file,
        cause: error,
      },
    );
  }
  const parsed = parseEnv(text);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed)) if (value !== undefined) out[name] = value;
  return out;
}

/** The variables placeholders see: `<home>/.env` overlaid by the process environment (the environment wins). */
export function mergeEnv(dotEnv: Readonly<Record<string, string>>, env: Env): Record<string, string> {
  const merged: Record<string, string> = { ...dotEnv };
  for (const [name, value] of Object.entries(env)) if (value !== undefined) merged[name] = value;
  return merged;
}

export interface InterpolateOptions {
  /** Variables to substitute (see {@link mergeEnv}). */
  env: Readonly<Record<string, string>>;
  /** File name used in messages, e.g. `config.yaml`. */
  file: string;
  /** Path of the `.env` file, named in the message about a missing variable. */
  envFile: string;
  /** Paths where a missing variable becomes an empty string instead of an error (e.g. disabled models). */
  lenient?: (path: ReadonlyArray<string | number>) => boolean;
}

const PLACEHOLDER = /\$\$\{|\$\{([^}]*)\}|\$\{/g;
const NAME_AND_DEFAULT = /^([A-Za-z_][A-Za-z0-9_]*)(?::-([\s\S]*))?$/;

function interpolateString(
  text: string,
  path: ReadonlyArray<string | number>,
  options: InterpolateOptions,
): string {
  const where = `${options.file}: ${formatKeyPath(path)}`;
  return text.replace(PLACEHOLDER, (match: string, inner: string | undefined) => {
    if (match === '$${') return '${';
    if (inner === undefined) {
      throw new ConfigError(
        `${where}: unterminated "\${" in value; write \${NAME}, \${NAME:-default} or $\${ for a literal`,
        {
          file: options.file,
          keyPath: formatKeyPath(path),
        },
      );
    }
    const parsed = NAME_AND_DEFAULT.exec(inner);
    if (!parsed) {
      throw new ConfigError(
        `${where}: malformed placeholder "${match}"; write \${NAME} or \${NAME:-default}`,
        {
          file: options.file,
          keyPath: formatKeyPath(path),
        },
      );
    }
    const name = parsed[1]!;
    const fallback = parsed[2];
    const value = options.env[name];
    if (fallback !== undefined) return value === undefined || value === '' ? fallback : value;
    if (value !== undefined) return value;
    if (options.lenient?.(path)) return '';
    throw new ConfigError(
      `${where}: environment variable ${name} is not set; set it in the environment or in ${options.envFile} ` +
        `(or give a default: \${${name}:-value})`,
      { file: options.file, keyPath: formatKeyPath(path), envVar: name },
    );
  });
}

/**
 * Replaces `${VAR}` and `${VAR:-default}` in every string value of a parsed YAML tree (keys are left alone),
 * returning a new tree. `:-` uses the default when the variable is unset or empty; `$${` is a literal `${`.
 * Pure: the input is not modified.
 * @throws ConfigError naming the key path and the variable when a variable without default is unset, or
 * when a placeholder is malformed.
 */
export function interpolate(
  value: unknown,
  options: InterpolateOptions,
  path: ReadonlyArray<string | number> = [],
): unknown {
  if (typeof value === 'string') return interpolateString(value, path, options);
  if (Array.isArray(value)) return value.map((item, index) => interpolate(item, options, [...path, index]));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = interpolate(item, options, [...path, key]);
    return out;
  }
  return value;
}
