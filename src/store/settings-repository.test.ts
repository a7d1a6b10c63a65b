import { describe, expect, it } from 'vitest';
import { openDatabase } from './open-database.js';
import { SettingsRepository } from './settings-repository.js';

describe('SettingsRepository', () => {
  it('gets, replaces and deletes values', () => {
    const db = openDatabase(':memory:');
    const settings = new SettingsRepository(db);
    expect(settings.get('gateway.token_hash')).toBeUndefined();
    settings.set('gateway.token_hash', 'one');
    settings.set('gateway.token_hash', 'two');
    expect(settings.get('gateway.token_hash')).toBe('two');
    expect(settings.delete('gateway.token_hash')).toBe(true);
    expect(settings.delete('gateway.token_hash')).toBe(false);
    expect(settings.get('gateway.token_hash')).toBeUndefined();
    db.close();
  });
});
