import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Redactor } from '../gate/redactor.js';
import { openStoresAt, type Stores } from '../store/open-stores.js';
import { createVaultService, VaultError } from './vault-service.js';

const opened: Stores[] = [];
afterEach(() => {
  for (const stores of opened.splice(0)) stores.close();
});

function setup(path = join(mkdtempSync(join(tmpdir(), 'wren-vault-')), 'wren.db')) {
  const stores = openStoresAt(path);
  opened.push(stores);
  const redactor = new Redactor();
  const key = Buffer.alloc(32, 3);
  const made: boolean[] = [];
  const vault = createVaultService({
    store: stores.vault,
    key: (create) => {
      made.push(create);
      return key;
    },
    redactor,
  });
  return { path, stores, redactor, vault, made };
}

describe('the vault service', () => {
  it('stores sealed values, lists names and bindings only, opens for a call and notes the use', () => {
    const { stores, vault, redactor, made } = setup();
    const entry = vault.set('GITHUB_TOKEN', 'ghp_abcdef123456', {
      hosts: ['API.github.com', ' '],
      programs: ['gh'],
    });
    expect(entry).toMatchObject({
      name: 'GITHUB_TOKEN',
      bindings: { hosts: ['api.github.com'], programs: ['gh'] },
    });
    expect(made).toEqual([true]);
    expect(stores.vault.get('GITHUB_TOKEN')!.sealed).not.toContain('ghp_abcdef123456');
    expect(JSON.stringify(vault.list())).not.toContain('ghp_abcdef123456');
    expect(vault.list()[0]).not.toHaveProperty('sealed');
    expect(redactor.text('token ghp_abcdef123456')).toBe('token [redacted]');
    expect(vault.open('GITHUB_TOKEN')).toBe('ghp_abcdef123456');
    expect(vault.get('GITHUB_TOKEN')?.usedAt).toBeDefined();
  });

  it('replacing a value redacts the new one and no longer the old; remove forgets it', () => {
    const { vault, redactor } = setup();
    vault.set('PASS', 'first-value');
    vault.set('PASS', 'second-value');
    expect(redactor.text('first-value second-value')).toBe('first-value [redacted]');
    expect(vault.remove('PASS')).toBe(true);
    expect(redactor.text('second-value')).toBe('second-value');
    expect(vault.remove('PASS')).toBe(false);
    expect(() => vault.open('PASS')).toThrow(VaultError);
  });

  it('refuses bad names, values too short to redact, too long or with a line break, without echoing them', () => {
    const { vault } = setup();
    for (const name of ['lower', '1ABC', 'A-B', `A${'B'.repeat(64)}`, ''])
      expect(() => vault.set(name, 'long enough')).toThrow(/not a vault name/);
    expect(() => vault.set('OK', 'abc')).toThrow(/shorter than 4/);
    expect(() => vault.set('OK', 'x'.repeat(20_000))).toThrow(/longer than/);
    expect(() => vault.set('OK', 'two\nlines')).toThrow(/line break/);
    try {
      vault.set('OK', 'sec\nret-value');
    } catch (error) {
      expect((error as Error).message).not.toContain('ret-value');
    }
    expect(vault.list()).toEqual([]);
  });

  it('a sealed row moved to another name does not open (the name is authenticated)', () => {
    const { stores, vault } = setup();
    vault.set('ONE', 'value-of-one');
    stores.vault.put('TWO', stores.vault.get('ONE')!.sealed, {});
    expect(() => vault.open('TWO')).toThrow(/does not open/);
  });

  it('learn picks up a value another process stored (wren vault set while Wren runs)', () => {
    const first = setup();
    const other = createVaultService({
      store: (() => {
        const stores = openStoresAt(first.path);
        opened.push(stores);
        return stores.vault;
      })(),
      key: () => Buffer.alloc(32, 3),
      redactor: new Redactor(),
    });
    other.set('LATER', 'set-elsewhere-123');
    expect(first.redactor.text('set-elsewhere-123')).toBe('set-elsewhere-123');
    expect(first.vault.learn()).toEqual([]);
    expect(first.redactor.text('set-elsewhere-123')).toBe('[redacted]');
    other.remove('LATER');
    first.vault.learn();
    expect(first.redactor.text('set-elsewhere-123')).toBe('set-elsewhere-123');
  });

  it('a value sealed under another key is reported by learn and refused by open', () => {
    const { path, vault } = setup();
    vault.set('OLD', 'sealed-before');
    const stores = openStoresAt(path);
    opened.push(stores);
    const rekeyed = createVaultService({
      store: stores.vault,
      key: () => Buffer.alloc(32, 9),
      redactor: new Redactor(),
    });
    expect(rekeyed.learn()).toEqual(['OLD']);
    expect(() => rekeyed.open('OLD')).toThrow(/another key sealed it/);
  });
});
