import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { routeHarness } from '../../test/support/route-harness.js';
import { writeInstructionFile } from '../memory/file-history.js';
import { createMemoryFileService } from '../services/memory-file-service.js';
import { contentHash } from '../store/file-version-repository.js';
import { openStores } from '../store/open-stores.js';
import { memoryRoutes } from './memory-routes.js';

const harness = routeHarness();

type Body = Record<string, unknown> & { error?: { code: string; message: string } };

function setup() {
  const { dir, db } = harness.database('wren-memversions-');
  const workspace = join(dir, 'workspace');
  const stores = openStores(db);
  writeFileSync(join(dir, 'x'), '');
  const app = memoryRoutes({
    workspace: () => workspace,
    files: createMemoryFileService(stores, {
      now: Date.now,
      timezone: () => 'UTC',
      defaultTargets: () => [],
    }),
    messages: stores.messages,
    timezone: () => 'UTC',
  });
  const send = async (method: string, path: string, options: { body?: unknown; ifMatch?: string } = {}) => {
    const response = await app.request(path, {
      method,
      headers: {
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(options.ifMatch !== undefined ? { 'if-match': options.ifMatch } : {}),
      },
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });
    return {
      status: response.status,
      etag: response.headers.get('etag'),
      body: (await response.json()) as Body,
    };
  };
  const consolidate = (content: string) =>
    writeInstructionFile({
      workspace,
      path: 'MEMORY.md',
      content,
      author: 'consolidation',
      note: 'session 1',
      versions: stores.fileVersions,
    });
  return { workspace, send, consolidate, versions: stores.fileVersions };
}

describe('If-Match on the memory files', () => {
  it('refuses a save over a text that changed meanwhile with 412 and the current text; nothing is lost', async () => {
    const { send, consolidate, workspace } = setup();
    await consolidate('# Memory\n- tea\n');
    const loaded = await send('GET', '/api/memory/files/MEMORY.md');
    expect(loaded.etag).toBe(`"${contentHash('# Memory\n- tea\n')}"`);
    expect(loaded.body['etag']).toBe(loaded.etag);
    await consolidate('# Memory\n- tea\n- Lisbon\n');
    const refused = await send('PUT', '/api/memory/files/MEMORY.md', {
      body: { content: '# Memory\n- tea\n- mine\n' },
      ifMatch: loaded.etag!,
    });
    expect(refused.status).toBe(412);
    expect(refused.body).toMatchObject({
      error: { code: 'conflict' },
      name: 'MEMORY.md',
      content: '# Memory\n- tea\n- Lisbon\n',
      etag: `"${contentHash('# Memory\n- tea\n- Lisbon\n')}"`,
      changedBy: { author: 'consolidation', note: 'session 1' },
    });
    expect(readFileSync(join(workspace, 'MEMORY.md'), 'utf8')).toBe('# Memory\n- tea\n- Lisbon\n');
    // "Keep mine": the same text again over the new ETag.
    const kept = await send('PUT', '/api/memory/files/MEMORY.md', {
      body: { content: '# Memory\n- tea\n- mine\n' },
      ifMatch: String(refused.body['etag']),
    });
    expect(kept.status).toBe(200);
    expect(kept.etag).toBe(`"${contentHash('# Memory\n- tea\n- mine\n')}"`);
  });

  it('treats a malformed If-Match as matching nothing, and * or none as no condition', async () => {
    const { send } = setup();
    const put = (ifMatch?: string) =>
      send('PUT', '/api/memory/files/USER.md', {
        body: { content: `x${ifMatch}` },
        ...(ifMatch ? { ifMatch } : {}),
      });
    expect((await put('"nope"')).status).toBe(412);
    expect((await put('*')).status).toBe(200);
    expect((await put()).status).toBe(200);
  });
});

describe('memory versions', () => {
  it('lists versions with who made them, shows one with its diff, and restores it as a new version', async () => {
    const { send, consolidate, versions, workspace } = setup();
    await consolidate('# Memory\n- tea\n');
    const loaded = await send('GET', '/api/memory/files/MEMORY.md');
    await send('PUT', '/api/memory/files/MEMORY.md', {
      body: { content: '# Memory\n- coffee\n' },
      ifMatch: loaded.etag!,
    });
    writeFileSync(join(workspace, 'MEMORY.md'), '# Memory\n- coffee\n- by hand\n');
    // Listing is a read: the hand edit is recorded first, as a disk version.
    const all = (await send('GET', '/api/memory/versions?file=MEMORY.md')).body['versions'] as Array<{
      id: number;
      author: string;
      bytes: number;
    }>;
    expect(all.map((v) => v.author)).toEqual(['disk', 'web', 'consolidation']);
    const web = all[1]!;
    const detail = await send('GET', `/api/memory/versions/${web.id}`);
    expect(detail.body).toMatchObject({
      version: { id: web.id, author: 'web', content: '# Memory\n- coffee\n', bytes: 18 },
      previousId: all[2]!.id,
    });
    expect(detail.body['diff']).toContain('-- tea\n+- coffee\n');
    const restored = await send('POST', `/api/memory/versions/${all[2]!.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ path: 'MEMORY.md', changed: true });
    expect(readFileSync(join(workspace, 'MEMORY.md'), 'utf8')).toBe('# Memory\n- tea\n');
    expect(versions.latest('MEMORY.md')).toMatchObject({
      author: 'revert',
      note: `revert to #${all[2]!.id} (web)`,
    });
  });

  it('restores only over the text the owner saw (If-Match), and refuses unknown ids and files', async () => {
    const { send, consolidate } = setup();
    const first = await consolidate('# Memory\n- tea\n');
    await consolidate('# Memory\n- tea\n- cats\n');
    const stale = `"${contentHash('# Memory\n- tea\n')}"`;
    const refused = await send('POST', `/api/memory/versions/${first.version!.id}/restore`, {
      ifMatch: stale,
    });
    expect(refused.status).toBe(412);
    expect(refused.body['content']).toBe('# Memory\n- tea\n- cats\n');
    expect((await send('POST', '/api/memory/versions/999/restore')).status).toBe(404);
    expect((await send('GET', '/api/memory/versions/0')).status).toBe(400);
    expect((await send('GET', '/api/memory/versions/abc')).status).toBe(400);
    expect((await send('GET', '/api/memory/versions?file=HISTORY.md')).status).toBe(404);
    expect((await send('GET', '/api/memory/versions?limit=0')).status).toBe(400);
  });
});
