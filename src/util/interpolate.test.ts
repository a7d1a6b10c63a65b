// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} placeholders are the literal text under test
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { interpolate, mergeEnv } from './interpolate.js';

const options = (env: Record<string, string>) => ({ env, file: 'config.yaml', envFile: '/h/.env' });

describe('interpolate', () => {
  it('replaces placeholders in nested string values and leaves other values alone', () => {
    const input = { a: ['x ${A} y', 3, true, null], b: { c: '${B:-fallback}', d: 'plain' } };
    expect(interpolate(input, options({ A: '1' }))).toEqual({
      a: ['x 1 y', 3, true, null],
      b: { c: 'fallback', d: 'plain' },
    });
    expect(input.a[0]).toBe('x ${A} y');
  });

  it('keeps $${ as a literal ${', () => {
    expect(interpolate('cost: $${HOME}', options({ HOME: '/root' }))).toBe('cost: ${HOME}');
  });

  it('uses the value of a set variable even when empty, unless a default is given', () => {
    expect(interpolate('[${E}]', options({ E: '' }))).toBe('[]');
    expect(interpolate('[${E:-d}]', options({ E: '' }))).toBe('[d]');
  });

  it('names the key path and the variable when one is missing', () => {
    let caught: unknown;
    try {
      interpolate({ models: [{ api_key: '${KEY}' }] }, options({}));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect(caught).toMatchObject({
      message:
        'config.yaml: models[0].api_key: environment variable KEY is not set; set it in the environment or in ' +
        '/h/.env (or give a default: ${KEY:-value})',
      keyPath: 'models[0].api_key',
      envVar: 'KEY',
    });
  });

  it('rejects malformed and unterminated placeholders', () => {
    expect(() => interpolate({ a: '${1X}' }, options({}))).toThrow(
      'config.yaml: a: malformed placeholder "${1X}"',
    );
    expect(() => interpolate({ a: '${X:default}' }, options({}))).toThrow('malformed placeholder');
    expect(() => interpolate({ a: 'x ${X' }, options({}))).toThrow('config.yaml: a: unterminated "${"');
  });

  it('substitutes an empty string at lenient paths', () => {
    const lenient = (path: ReadonlyArray<string | number>) => path[0] === 'off';
    expect(interpolate({ off: '${NOPE}' }, { ...options({}), lenient })).toEqual({ off: '' });
  });
});

describe('mergeEnv', () => {
  it('lets the environment win over .env and skips undefined values', () => {
    expect(mergeEnv({ A: 'file', B: 'file' }, { A: 'env', C: undefined })).toEqual({ A: 'env', B: 'file' });
  });
});
