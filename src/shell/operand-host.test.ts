import { describe, expect, it } from 'vitest';
import { operandHost } from './operand-host.js';

describe('operandHost', () => {
  it('finds the host in what network clients take as a destination', () => {
    expect(operandHost('127.0.0.1')).toBe('127.0.0.1');
    expect(operandHost('localhost:11434/api/tags')).toBe('localhost');
    expect(operandHost('user@10.0.0.5')).toBe('10.0.0.5');
    expect(operandHost('backup@192.168.1.5:/srv')).toBe('192.168.1.5');
    expect(operandHost('[::1]:6379')).toBe('[::1]');
    expect(operandHost('::1')).toBe('::1');
    expect(operandHost('@127.0.0.53')).toBe('127.0.0.53');
    expect(operandHost('--host=127.0.0.1')).toBe('127.0.0.1');
    expect(operandHost('2130706433')).toBe('2130706433');
    expect(operandHost('0:11434')).toBe('0');
    expect(operandHost('TCP4:10.0.0.1:80')).toBe('10.0.0.1');
    expect(operandHost('UNIX-CONNECT:/run/x.sock')).toBe('unix:/run/x.sock');
    // Ports, counts and options are not addresses (the C library would read `6379` as 0.0.24.251).
    for (const text of ['6379', '80', '0x10', '-s', '--insecure', ''])
      expect(operandHost(text), text).toBe(undefined);
  });
});
