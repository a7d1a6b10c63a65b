// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} placeholders are the literal text under test
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../util/config-error.js';
import { addModel, editConfig, removeModel, setEnvVar } from './config-writer.js';
import { ensureHome } from './home.js';
import { loadConfig } from './load-config.js';

let root: string;
let home: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'wren-writer-'));
  home = join(root, 'home');
  ensureHome(home);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const readConfig = () => readFileSync(join(home, 'config.yaml'), 'utf8');
const mode = (path: string) => statSync(path).mode & 0o777;

describe('addModel', () => {
  it('keeps comments and placeholders and never writes the resolved secret', () => {
    writeFileSync(
      join(home, 'config.yaml'),
      '# my notes\ngateway:\n  token: ${GATEWAY_TOKEN} # keep me\nmodels: []\n',
      { mode: 0o600 },
    );
    const env = { GATEWAY_TOKEN: 'gateway-secret' };
    setEnvVar(home, 'DEEPSEEK_API_KEY', 'sk-very-secret');
    addModel(
      home,
      { name: 'ds', provider: 'deepseek', model: 'deepseek-chat', api_key: '${DEEPSEEK_API_KEY}' },
      env,
    );
    const text = readConfig();
    expect(text).toContain('# my notes');
    expect(text).toContain('token: ${GATEWAY_TOKEN} # keep me');
    expect(text).toContain('api_key: ${DEEPSEEK_API_KEY}');
    expect(text).not.toContain('sk-very-secret');
    expect(text).not.toContain('gateway-secret');
    expect(mode(join(home, 'config.yaml'))).toBe(0o600);
    expect(loadConfig(home, env).models[0]).toMatchObject({ name: 'ds', apiKey: 'sk-very-secret' });
  });

  it('turns the starter `models: []` into a block list and keeps its explanation', () => {
    addModel(home, { name: 'local', provider: 'ollama', model: 'qwen3:8b', tags: ['default', 'small'] }, {});
    const text = readConfig();
    expect(text).toContain('# The models Wren may use.');
    expect(text).toMatch(
      /models:\n {2}- name: local\n {4}provider: ollama\n {4}model: qwen3:8b\n {4}tags: \[ default, small \]\n/,
    );
    expect(loadConfig(home, {}).models.map((model) => model.name)).toEqual(['local']);
  });

  it('refuses a literal API key, a duplicate name and an entry that does not validate, leaving the file alone', () => {
    addModel(home, { name: 'local', provider: 'ollama', model: 'x' }, {});
    const before = readConfig();
    expect(() =>
      addModel(home, { name: 'k', provider: 'openai', model: 'x', api_key: 'sk-123' }, {}),
    ).toThrow(/api_key must be a \$\{VAR\} placeholder/);
    expect(() => addModel(home, { name: 'local', provider: 'ollama', model: 'y' }, {})).toThrow(
      'models[0].name: a model named "local" exists',
    );
    expect(() => addModel(home, { name: 'o', provider: 'openai', model: 'x' }, {})).toThrow(
      /change not saved[\s\S]*models\[1\]\.api_key[\s\S]*OPENAI_API_KEY/,
    );
    expect(readConfig()).toBe(before);
  });

  it('creates config.yaml from the starter when it is missing', () => {
    rmSync(join(home, 'config.yaml'));
    addModel(home, { name: 'local', provider: 'ollama', model: 'x' }, {});
    expect(readConfig()).toContain('# Wren configuration.');
    expect(mode(join(home, 'config.yaml'))).toBe(0o600);
  });
});

describe('removeModel and editConfig', () => {
  it('removes an entry by name and rejects an unknown one', () => {
    addModel(home, { name: 'a', provider: 'ollama', model: 'x' }, {});
    addModel(home, { name: 'b', provider: 'ollama', model: 'y' }, {});
    removeModel(home, 'a', {});
    expect(loadConfig(home, {}).models.map((model) => model.name)).toEqual(['b']);
    expect(() => removeModel(home, 'zzz', {})).toThrow(ConfigError);
  });

  it('applies a generic edit only when the result validates', () => {
    editConfig(home, (doc) => doc.setIn(['gateway', 'port'], 8123), {});
    expect(loadConfig(home, {}).gateway.port).toBe(8123);
    expect(() => editConfig(home, (doc) => doc.setIn(['gateway', 'prot'], 1), {})).toThrow(
      /change not saved[\s\S]*gateway\.prot: unknown key \(did you mean port\?\)/,
    );
    expect(loadConfig(home, {}).gateway.port).toBe(8123);
  });
});

describe('setEnvVar', () => {
  const envFile = () => join(home, '.env');

  it('creates .env with mode 0600', () => {
    setEnvVar(home, 'API_KEY', 'abc');
    expect(readFileSync(envFile(), 'utf8')).toBe('API_KEY=abc\n');
    expect(mode(envFile())).toBe(0o600);
  });

  it('updates an existing line in place and keeps the other lines', () => {
    writeFileSync(envFile(), '# keys\nA=1\nexport KEY=old\nB=2\nKEY=dup\n', { mode: 0o644 });
    setEnvVar(home, 'KEY', 'new');
    expect(readFileSync(envFile(), 'utf8')).toBe('# keys\nA=1\nKEY=new\nB=2\n');
    expect(mode(envFile())).toBe(0o600);
  });

  it('quotes values so they read back exactly', () => {
    const values = ['a b # not a comment', "it's", 'line1\nline2', ''];
    for (const [index, value] of values.entries()) setEnvVar(home, `V${index}`, value);
    writeFileSync(join(home, 'config.yaml'), 'gateway:\n  token: "${V0}|${V1}|${V2}|${V3:-empty}"\n');
    expect(loadConfig(home, {}).gateway.token).toBe("a b # not a comment|it's|line1\nline2|empty");
  });

  it('rejects invalid names and unrepresentable values without echoing the value', () => {
    expect(() => setEnvVar(home, '1BAD', 'x')).toThrow(/not a valid variable name/);
    let message = '';
    try {
      setEnvVar(home, 'MIXED', `secret'"\nvalue`);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/MIXED cannot be stored faithfully/);
    expect(message).not.toContain('secret');
  });
});
