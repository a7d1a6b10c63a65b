import { describe, expect, it } from 'vitest';
import { contentHash } from './file-version-repository.js';
import { openDatabase } from './open-database.js';
import { openStores } from './open-stores.js';

function stores() {
  let now = 1000;
  return openStores(openDatabase(':memory:'), { clock: () => (now += 10) });
}

describe('file versions', () => {
  it('records a version only when the content changed, and walks back through them', () => {
    const { fileVersions } = stores();
    const first = fileVersions.record({ path: 'MEMORY.md', content: '# Memory\n', author: 'consolidation' });
    expect(fileVersions.record({ path: 'MEMORY.md', content: '# Memory\n', author: 'web' })).toEqual(first);
    const second = fileVersions.record({
      path: 'MEMORY.md',
      content: '# Memory\n- tea\n',
      author: 'web',
      note: 'x'.repeat(900),
    });
    fileVersions.record({ path: 'USER.md', content: '# User\n', author: 'disk' });
    expect(second).toMatchObject({ sha256: contentHash('# Memory\n- tea\n'), author: 'web' });
    expect(second.note).toHaveLength(500);
    expect(fileVersions.latest('MEMORY.md')?.id).toBe(second.id);
    expect(fileVersions.previous('MEMORY.md', second.id)?.id).toBe(first.id);
    expect(fileVersions.previous('MEMORY.md', first.id)).toBeUndefined();
    expect(fileVersions.list({ path: 'MEMORY.md' }).map((entry) => [entry.id, entry.bytes])).toEqual([
      [second.id, 15],
      [first.id, 9],
    ]);
    expect(fileVersions.list().map((entry) => entry.path)).toEqual(['USER.md', 'MEMORY.md', 'MEMORY.md']);
    expect(fileVersions.get(999)).toBeUndefined();
  });

  it('keeps vault rows by name, replacing a value but not its creation time', () => {
    const { vault } = stores();
    const made = vault.put('API_KEY', 'v1:aaaa', { hosts: ['api.example.com'] });
    const replaced = vault.put('API_KEY', 'v1:bbbb', { programs: ['curl'] });
    expect(replaced).toMatchObject({
      sealed: 'v1:bbbb',
      bindings: { programs: ['curl'] },
      createdAt: made.createdAt,
    });
    expect(replaced.updatedAt).toBeGreaterThan(made.updatedAt);
    vault.touch('API_KEY');
    expect(vault.get('API_KEY')?.usedAt).toBeDefined();
    expect(vault.list().map((record) => record.name)).toEqual(['API_KEY']);
    expect(vault.remove('API_KEY')).toBe(true);
    expect(vault.remove('API_KEY')).toBe(false);
  });
});
