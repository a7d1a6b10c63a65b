import { describe, expect, it } from 'vitest';
import { execVaultPlan } from './exec-vault.js';

const opener = (name: string) => `value-of-${name}`;

describe('execVaultPlan', () => {
  it('puts env references in as values and command references as variable expansions', () => {
    expect(execVaultPlan('curl -H "x: {{vault:A}}" -u "$U"', { U: 'me:{{vault:B}}' }, opener)).toEqual({
      command: 'curl -H "x: ${WREN_VAULT_A}" -u "$U"',
      env: { U: 'me:value-of-B', WREN_VAULT_A: 'value-of-A' },
    });
    expect(execVaultPlan('ls', undefined, undefined)).toEqual({ command: 'ls', env: {} });
  });

  it('refuses env names that steer the shell, the loader or an interpreter, and plain variables', () => {
    for (const name of [
      'PATH',
      'BASH_ENV',
      'LD_PRELOAD',
      'NODE_OPTIONS',
      'PYTHONPATH',
      'GIT_SSH_COMMAND',
      'WREN_X',
      'A-B',
    ])
      expect(() => execVaultPlan('true', { [name]: '{{vault:A}}' }, opener)).toThrow(/may not set/);
    expect(() => execVaultPlan('true', { PLAIN: 'text' }, opener)).toThrow(/holds no \{\{vault:NAME\}\}/);
  });

  it('refuses to open anything for a call the gate did not permit', () => {
    expect(() => execVaultPlan('echo "{{vault:A}}"', undefined, undefined)).toThrow(/gate let through/);
  });
});
