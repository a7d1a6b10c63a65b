import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { type Document, isMap, isScalar, isSeq, type YAMLMap, YAMLSeq } from 'yaml';
import { writeFileAtomic } from '../util/atomic-write.js';
import { ConfigError } from '../util/config-error.js';
import { type Env, mergeEnv, readDotEnv } from '../util/interpolate.js';
import type { ModelEntry } from './config-schema.js';
import { configPath, readConfigFile } from './load-config.js';
import { parseConfig, parseYamlDocument } from './parse-config.js';
import { STARTER_CONFIG } from './starter-config.js';

/**
 * Edits `<home>/config.yaml` through the YAML Document API, so comments, layout and `${VAR}` placeholders
 * survive; resolved values are never written back. The edited text is validated (with `env` merged over
 * `<home>/.env`) before anything is written, then written atomically with mode 0600. A missing config.yaml
 * starts from the starter template.
 * @throws ConfigError when the current file has a YAML syntax error or the edit would make the config invalid
 * (nothing is written then). Errors thrown by `edit` propagate, also without writing.
 */
export function editConfig(home: string, edit: (doc: Document) => void, env: Env = process.env): void {
  const file = configPath(home);
  const doc = parseYamlDocument(readConfigFile(file) ?? STARTER_CONFIG, file);
  edit(doc);
  const text = doc.toString();
  try {
    parseConfig(text, { home, file, env: mergeEnv(readDotEnv(home), env) });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(`${file}: change not saved, it would make the config invalid:\n${error.message}`, {
      file,
      ...(error.keyPath ? { keyPath: error.keyPath } : {}),
      ...(error.envVar ? { envVar: error.envVar } : {}),
      cause: error,
    });
  }
  writeFileAtomic(file, text, 0o600);
}

const PLACEHOLDER_ONLY = /^\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}$/;

function modelsSeq(doc: Document, file: string): YAMLSeq {
  const node = doc.get('models', true);
  if (isSeq(node)) {
    if (node.items.length === 0) node.flow = false; // `models: []` becomes a block list
    return node;
  }
  if (node !== undefined && !(isScalar(node) && node.value === null)) {
    throw new ConfigError(`${file}: models: must be a list; fix it by hand first`, {
      file,
      keyPath: 'models',
    });
  }
  const seq = new YAMLSeq();
  doc.set('models', seq);
  return seq;
}

function modelNames(seq: YAMLSeq): string[] {
  return seq.items.map((item) => (isMap(item) ? String(item.get('name')) : ''));
}

/**
 * Appends a `models:` entry (snake_case keys as in config.yaml). `api_key`, when given, must be a `${VAR}`
 * placeholder: store the secret itself with {@link setEnvVar}. Short lists (tags) are written inline.
 * @throws ConfigError for a literal api_key, a duplicate name, or an entry that fails validation (e.g. its
 * `${VAR}` is not set yet: call setEnvVar first); the file is unchanged then.
 */
export function addModel(home: string, entry: ModelEntry, env: Env = process.env): void {
  if (entry.api_key !== undefined && !PLACEHOLDER_ONLY.test(entry.api_key)) {
    throw new ConfigError(
      `${configPath(home)}: models: api_key must be a \${VAR} placeholder, not the key itself; ` +
        `store the key in ${join(home, '.env')} (setEnvVar) and write api_key: \${NAME}`,
      { file: configPath(home), keyPath: 'api_key' },
    );
  }
  editConfig(
    home,
    (doc) => {
      const seq = modelsSeq(doc, configPath(home));
      const index = modelNames(seq).indexOf(entry.name);
      if (index >= 0) {
        throw new ConfigError(
          `${configPath(home)}: models[${index}].name: a model named "${entry.name}" exists`,
          {
            file: configPath(home),
            keyPath: `models[${index}].name`,
          },
        );
      }
      const node = doc.createNode(entry) as YAMLMap;
      for (const pair of node.items) if (isSeq(pair.value)) pair.value.flow = true;
      seq.items.push(node);
    },
    env,
  );
}

/**
 * Removes the `models:` entry called `name`.
 * @throws ConfigError when there is none (the file is unchanged).
 */
export function removeModel(home: string, name: string, env: Env = process.env): void {
  editConfig(
    home,
    (doc) => {
      const node = doc.get('models', true);
      const index = isSeq(node) ? modelNames(node).indexOf(name) : -1;
      if (!isSeq(node) || index < 0) {
        throw new ConfigError(`${configPath(home)}: models: no model named "${name}"`, {
          file: configPath(home),
        });
      }
      node.items.splice(index, 1);
    },
    env,
  );
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function encodeEnvValue(name: string, value: string, file: string): string {
  let encoded: string;
  if (/^[\w.:/+=@,%~^-]*$/.test(value)) encoded = value;
  else if (!/['\n\r]/.test(value)) encoded = `'${value}'`;
  else if (!/["\r]/.test(value)) encoded = `"${value.replace(/\n/g, '\\n')}"`;
  else encoded = '';
  if (parseEnv(`${name}=${encoded}\n`)[name] !== value) {
    throw new ConfigError(
      `${file}: the value for ${name} cannot be stored faithfully in a .env file (it mixes quotes and line ` +
        'breaks); set it in the environment instead',
      { file, envVar: name },
    );
  }
  return encoded;
}

/**
 * Sets `NAME=value` in `<home>/.env`: an existing line for NAME is updated in place (later duplicates are
 * dropped), otherwise a line is appended; other lines and comments are kept. Quotes the value as needed.
 * Written atomically with mode 0600. Idempotent. The value never appears in an error message.
 * @throws ConfigError for an invalid variable name or a value dotenv syntax cannot represent.
 */
export function setEnvVar(home: string, name: string, value: string): void {
  const file = join(home, '.env');
  if (!ENV_NAME.test(name)) {
    throw new ConfigError(
      `${file}: "${name}" is not a valid variable name (letters, digits and _, not first a digit)`,
      {
        file,
      },
    );
  }
  const line = `${name}=${encodeEnvValue(name, value, file)}`;
  const existing = readConfigFile(file) ?? '';
  const matcher = new RegExp(`^\\s*(?:export\\s+)?${name}\\s*=`);
  const lines = existing === '' ? [] : existing.replace(/\n$/, '').split('\n');
  let replaced = false;
  const out: string[] = [];
  for (const current of lines) {
    if (!matcher.test(current)) out.push(current);
    else if (!replaced) {
      out.push(line);
      replaced = true;
    }
  }
  if (!replaced) out.push(line);
  writeFileAtomic(file, `${out.join('\n')}\n`, 0o600);
}

/** Removes every `NAME=` line from `<home>/.env` (atomically, mode 0600); false when there was none. */
export function unsetEnvVar(home: string, name: string): boolean {
  const file = join(home, '.env');
  const existing = readConfigFile(file);
  if (existing === undefined || !ENV_NAME.test(name)) return false;
  const matcher = new RegExp(`^\\s*(?:export\\s+)?${name}\\s*=`);
  const lines = existing.replace(/\n$/, '').split('\n');
  const kept = lines.filter((line) => !matcher.test(line));
  if (kept.length === lines.length) return false;
  writeFileAtomic(file, kept.length > 0 ? `${kept.join('\n')}\n` : '', 0o600);
  return true;
}
