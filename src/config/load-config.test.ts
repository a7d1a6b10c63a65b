// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} placeholders are the literal text under test
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../util/config-error.js';
import { loadConfig, resolveEndpoints } from './load-config.js';
import { STARTER_CONFIG } from './starter-config.js';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'wren-config-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const write = (text: string) => writeFileSync(join(home, 'config.yaml'), text);

function loadError(env: Record<string, string> = {}): ConfigError {
  try {
    loadConfig(home, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected loadConfig to throw');
}

describe('loadConfig', () => {
  it('uses the defaults when there is no config.yaml', () => {
    const config = loadConfig(home, {});
    expect(config.models).toEqual([]);
    expect(config.gateway).toEqual({
      host: '127.0.0.1',
      port: 7777,
      allowedHosts: [],
      openaiCompat: { approvals: 'deny' },
    });
    expect(config.agent).toMatchObject({
      maxRounds: 40,
      maxConcurrency: 4,
      maxParallelTools: 4,
      subagents: {
        maxDepth: 1,
        perSession: 3,
        perSessionHourly: 20,
        maxQueued: 10,
        maxConcurrent: 3,
        maxRounds: 15,
      },
      maxToolResultChars: 16000,
      repeatLimit: 3,
      historyReserveTokens: 1024,
    });
    expect(config.agent.timezone).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(config.workspace).toBe(join(home, 'workspace'));
    expect(config.log.level).toBe('info');
    expect(config.file).toBe(join(home, 'config.yaml'));
  });

  it('accepts the starter config as written', () => {
    write(STARTER_CONFIG);
    expect(loadConfig(home, {}).models).toEqual([]);
  });

  it('treats an empty section as absent', () => {
    write('models:\ngateway:\n');
    expect(loadConfig(home, {}).gateway.port).toBe(7777);
  });

  it('fills protocol, base_url, context window and API key from a provider preset', () => {
    write('models:\n  - name: ds\n    provider: deepseek\n    model: deepseek-chat\n');
    const [model] = loadConfig(home, { DEEPSEEK_API_KEY: 'sk-test' }).models;
    expect(model).toEqual({
      name: 'ds',
      provider: 'deepseek',
      protocol: 'openai',
      baseUrl: 'https://api.deepseek.com/v1',
      apiKey: 'sk-test',
      apiKeyEnv: 'DEEPSEEK_API_KEY',
      model: 'deepseek-chat',
      tags: ['default'],
      priority: 0,
      contextWindow: 128_000,
      maxOutputTokens: 4096,
      enabled: true,
      timeoutSeconds: 120,
      vision: false,
    });
  });

  it('lets explicit fields win over the preset', () => {
    write(
      [
        'models:',
        '  - name: ds',
        '    provider: deepseek',
        '    model: deepseek-chat',
        '    base_url: https://proxy.example.com/v1/',
        '    api_key: ${MY_KEY}',
        '    context_window: 32000',
        '    tags: [small]',
        '    priority: 2',
        '    timeout: 30',
      ].join('\n'),
    );
    const [model] = loadConfig(home, { MY_KEY: 'mine' }).models;
    expect(model).toMatchObject({
      baseUrl: 'https://proxy.example.com/v1',
      apiKey: 'mine',
      contextWindow: 32000,
      tags: ['small'],
      priority: 2,
      timeoutSeconds: 30,
    });
    expect(model?.apiKeyEnv).toBeUndefined();
  });

  it('merges preset headers under the entry headers', () => {
    write(
      'models:\n  - name: or\n    provider: openrouter\n    model: m\n    headers:\n      X-Title: Mine\n      X-Extra: "1"\n',
    );
    const [model] = loadConfig(home, { OPENROUTER_API_KEY: 'k' }).models;
    expect(model?.headers).toEqual({ 'X-Title': 'Mine', 'X-Extra': '1' });
  });

  it('needs no key for a local preset', () => {
    write('models:\n  - name: local\n    provider: ollama\n    model: qwen3:8b\n');
    const [model] = loadConfig(home, {}).models;
    expect(model).toMatchObject({ baseUrl: 'http://127.0.0.1:11434/v1', contextWindow: 8192 });
    expect(model?.apiKey).toBeUndefined();
  });

  it('names the unset key variable of a preset', () => {
    write('models:\n  - name: ds\n    provider: deepseek\n    model: deepseek-chat\n');
    const error = loadError();
    expect(error.message).toContain('models[0].api_key');
    expect(error.message).toContain('DEEPSEEK_API_KEY');
    expect(error.message).toContain(join(home, '.env'));
    expect(error.envVar).toBe('DEEPSEEK_API_KEY');
  });

  it('suggests the closest provider for an unknown one', () => {
    write('models:\n  - name: ds\n    provider: deepsek\n    model: x\n');
    expect(loadError().message).toBe(
      `${join(home, 'config.yaml')}: models[0].provider: unknown provider "deepsek" (did you mean deepseek?); ` +
        'or drop provider: and set protocol and base_url',
    );
  });

  it('requires protocol and base_url without a provider, naming the key paths', () => {
    write(
      'models:\n  - name: a\n    protocol: openai\n    base_url: http://127.0.0.1:1/v1\n    model: x\n  - name: b\n    model: y\n',
    );
    const error = loadError();
    expect(error.keyPath).toBe('models[1].protocol');
    expect(error.message).toContain('models[1].protocol: missing');
    expect(error.message).toContain('models[1].base_url: missing');
  });

  it('reports an unknown key with its full path and a suggestion', () => {
    write('models:\n  - name: a\n    provider: ollama\n    model: x\n    baseurl: http://x\n');
    const error = loadError();
    expect(error.message).toBe(
      `${join(home, 'config.yaml')}: models[0].baseurl: unknown key (did you mean base_url?)`,
    );
    expect(error.keyPath).toBe('models[0].baseurl');
  });

  it('reports nested and top-level unknown keys, listing allowed keys when nothing is close', () => {
    write('gateway:\n  prot: 1\nagent:\n  zzz: 1\nqqqq: {}\nchanels: {}\n');
    const lines = loadError().message.split('\n');
    expect(lines).toContain(`${join(home, 'config.yaml')}: gateway.prot: unknown key (did you mean port?)`);
    expect(
      lines.some((line) =>
        line.startsWith(
          `${join(home, 'config.yaml')}: qqqq: unknown key; allowed keys: models, gateway, agent, workspace, log`,
        ),
      ),
    ).toBe(true);
    expect(lines).toContain(`${join(home, 'config.yaml')}: chanels: unknown key (did you mean channels?)`);
    expect(lines.some((line) => line.includes('agent.zzz: unknown key; allowed keys: max_rounds'))).toBe(
      true,
    );
  });

  it('reports a wrong type plainly', () => {
    write('gateway:\n  port: lots\n');
    expect(loadError().message).toBe(
      `${join(home, 'config.yaml')}: gateway.port: expected a number, got a string`,
    );
  });

  it('reports an out-of-range value and a bad enum value', () => {
    write('gateway:\n  port: 70000\nlog:\n  level: verbose\n');
    const message = loadError().message;
    expect(message).toContain('gateway.port: must be at most 65535');
    expect(message).toContain('log.level: must be one of trace, debug, info, warn, error; got "verbose"');
  });

  it('hints at quoting a number where a string is expected', () => {
    write('models:\n  - name: a\n    provider: ollama\n    model: 4\n');
    expect(loadError().message).toContain(
      'models[0].model: expected a string, got a whole number (quote it: "4")',
    );
  });

  it('rejects duplicate model names', () => {
    const entry = (name: string) => `  - name: ${name}\n    provider: ollama\n    model: x\n`;
    write(`models:\n${entry('a')}${entry('b')}${entry('a')}`);
    expect(loadError().message).toContain(
      'models[2].name: duplicate model name "a" (already used by models[0])',
    );
  });

  it('rejects max_output_tokens that do not fit the context window', () => {
    write('models:\n  - name: a\n    provider: ollama\n    model: x\n    max_output_tokens: 9000\n');
    expect(loadError().message).toContain(
      'models[0].max_output_tokens: 9000 must be less than the context window (8192)',
    );
  });

  it('rejects an unknown time zone', () => {
    write('agent:\n  timezone: Mars/Olympus\n');
    expect(loadError().message).toContain('agent.timezone: unknown time zone');
  });

  it('names the variable and the key path when ${VAR} is unset', () => {
    write('gateway:\n  token: ${WREN_TOKEN}\n');
    const error = loadError();
    expect(error.message).toBe(
      `${join(home, 'config.yaml')}: gateway.token: environment variable WREN_TOKEN is not set; set it in the ` +
        `environment or in ${join(home, '.env')} (or give a default: \${WREN_TOKEN:-value})`,
    );
    expect(error.envVar).toBe('WREN_TOKEN');
    expect(error.keyPath).toBe('gateway.token');
  });

  it('uses ${VAR:-default} when the variable is unset or empty, and coerces numbers', () => {
    write('gateway:\n  port: ${PORT:-8080}\n  host: ${HOST:-0.0.0.0}\n');
    expect(loadConfig(home, { HOST: '' }).gateway).toEqual({
      host: '0.0.0.0',
      port: 8080,
      allowedHosts: [],
      openaiCompat: { approvals: 'deny' },
    });
    expect(loadConfig(home, { PORT: '9000' }).gateway.port).toBe(9000);
  });

  it('treats an empty gateway token as no token', () => {
    write('gateway:\n  token: ${WREN_TOKEN:-}\n');
    expect(loadConfig(home, {}).gateway).toEqual({
      host: '127.0.0.1',
      port: 7777,
      allowedHosts: [],
      openaiCompat: { approvals: 'deny' },
    });
  });

  it('reads gateway.openai_compat.approvals (deny or wait)', () => {
    write('gateway:\n  openai_compat:\n    approvals: wait\n');
    expect(loadConfig(home, {}).gateway.openaiCompat).toEqual({ approvals: 'wait' });
    write('gateway:\n  openai_compat:\n    approvals: ask\n');
    expect(loadError().message).toContain(
      'gateway.openai_compat.approvals: must be one of deny, wait; got "ask"',
    );
  });

  it('reads <home>/.env, and the environment wins over it', () => {
    writeFileSync(join(home, '.env'), 'TOKEN=from-file\nPORT=1234\n');
    write('gateway:\n  token: ${TOKEN}\n  port: ${PORT}\n');
    expect(loadConfig(home, {}).gateway).toMatchObject({ token: 'from-file', port: 1234 });
    expect(loadConfig(home, { TOKEN: 'from-env' }).gateway).toMatchObject({ token: 'from-env', port: 1234 });
  });

  it('does not require variables of a disabled model', () => {
    write(
      'models:\n  - name: off\n    provider: deepseek\n    model: m\n    api_key: ${NOT_SET}\n    enabled: false\n',
    );
    expect(loadConfig(home, {}).models[0]?.enabled).toBe(false);
  });

  it('reports a YAML syntax error with line and column', () => {
    write('log:\n  level: info\ngateway:\n  port: 1\n  port: 2\n');
    const error = loadError();
    expect(error.message).toBe(
      `${join(home, 'config.yaml')}:5:3: YAML syntax error at line 5, column 3: Map keys must be unique; ` +
        'fix the file and try again',
    );
  });

  it('reports a top level that is not a mapping', () => {
    write('- a\n- b\n');
    expect(loadError().message).toContain('the top level must be a mapping');
  });

  it('expands ~ and resolves relative workspace paths against the home', () => {
    write('workspace: ~/notes\n');
    expect(loadConfig(home, {}).workspace).toBe(join(homedir(), 'notes'));
    write('workspace: files\n');
    expect(loadConfig(home, {}).workspace).toBe(join(home, 'files'));
  });

  it('returns a deep-frozen object', () => {
    write('models:\n  - name: a\n    provider: ollama\n    model: x\n');
    const config = loadConfig(home, {});
    expect(() => {
      (config.gateway as { port: number }).port = 1;
    }).toThrow(TypeError);
    expect(() => {
      (config.models[0]!.tags as string[]).push('x');
    }).toThrow(TypeError);
    expect(() => {
      (config.models as unknown[]).pop();
    }).toThrow(TypeError);
  });
});

describe('resolveEndpoints', () => {
  it('maps models to endpoint configs with the timeout in milliseconds', () => {
    write(
      'models:\n  - name: a\n    protocol: anthropic\n    base_url: http://127.0.0.1:9/v1\n    model: m\n    timeout: 1.5\n    vision: true\n',
    );
    expect(resolveEndpoints(loadConfig(home, {}))).toEqual([
      {
        name: 'a',
        protocol: 'anthropic',
        baseUrl: 'http://127.0.0.1:9/v1',
        model: 'm',
        tags: ['default'],
        priority: 0,
        contextWindow: 32_768,
        maxOutputTokens: 4096,
        enabled: true,
        timeoutMs: 1500,
        vision: true,
      },
    ]);
  });
});
