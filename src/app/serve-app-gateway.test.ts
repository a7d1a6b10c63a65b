import { describe, expect, it } from 'vitest';
import { ConfigError } from '../util/config-error.js';
import { checkTokenStrength } from './serve-app-gateway.js';

describe('checkTokenStrength', () => {
  it('asks 32 characters beyond loopback and 16 on it, and refuses characters a bearer token cannot carry', () => {
    const of = (length: number) => 'a'.repeat(length);
    expect(() => checkTokenStrength(of(31), '0.0.0.0')).toThrow(
      /shorter than 32 characters while the gateway listens on 0\.0\.0\.0/,
    );
    expect(() => checkTokenStrength(of(31), '192.168.1.20')).toThrow(ConfigError);
    expect(() => checkTokenStrength(of(32), '0.0.0.0')).not.toThrow();
    expect(() => checkTokenStrength(of(15), '127.0.0.1')).toThrow(/shorter than 16 characters/);
    expect(() => checkTokenStrength(of(16), '127.0.0.1')).not.toThrow();
    expect(() => checkTokenStrength(`${of(40)} x`, '127.0.0.1')).toThrow(
      /characters a bearer token cannot carry/,
    );
  });
});
