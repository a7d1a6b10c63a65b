import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonSender, routeHarness } from '../../test/support/route-harness.js';
import { normalizeFact } from '../memory/memory-file.js';
import { createMemoryProposalService } from '../services/memory-proposal-service.js';
import { openStores } from '../store/open-stores.js';
import { memoryProposalRoutes } from './memory-proposal-routes.js';

const harness = routeHarness();
const MEMORY = '# Memory\n\n- Ana is vegetarian.\n- Prefers short answers.\n';

type Body = Record<string, unknown> & { error?: { code: string; message: string } };

function setup() {
  const { dir, db } = harness.database('wren-proposalapi-');
  const workspace = join(dir, 'workspace');
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'MEMORY.md'), MEMORY);
  const stores = openStores(db);
  for (const [file, text] of [
    ['USER.md', '- Prefers short answers.'],
    ['AGENTS.md', '- Ana is vegetarian.'],
  ] as const)
    stores.memoryProposals.add([
      { file, text, key: normalizeFact(text), reason: 'standing', dreamKey: 'tidy:1' },
    ]);
  const app = memoryProposalRoutes({
    proposals: createMemoryProposalService(stores, {
      now: Date.now,
      timezone: () => 'UTC',
      defaultTargets: () => [],
    }),
    workspace: () => workspace,
  });
  const read = (name: string) => readFileSync(join(workspace, name), 'utf8');
  return { send: jsonSender<Body>(app), read };
}

describe('memory proposal routes', () => {
  it('lists the pending proposals; accept moves the line, dismiss leaves the files; ?all=1 shows both', async () => {
    const { send, read } = setup();
    const listed = await send('GET', '/api/memory/proposals');
    expect(listed.status).toBe(200);
    expect(listed.body['proposals']).toMatchObject([
      { id: 1, file: 'USER.md', text: '- Prefers short answers.', reason: 'standing', status: 'pending' },
      { id: 2, file: 'AGENTS.md', text: '- Ana is vegetarian.', status: 'pending' },
    ]);
    const accepted = await send('POST', '/api/memory/proposals/1/accept');
    expect(accepted).toMatchObject({ status: 200, body: { proposal: { id: 1, status: 'accepted' } } });
    expect(read('USER.md')).toBe('- Prefers short answers.\n');
    expect(read('MEMORY.md')).toBe('# Memory\n\n- Ana is vegetarian.\n');
    const dismissed = await send('POST', '/api/memory/proposals/2/dismiss');
    expect(dismissed).toMatchObject({ status: 200, body: { proposal: { id: 2, status: 'dismissed' } } });
    expect(read('MEMORY.md')).toBe('# Memory\n\n- Ana is vegetarian.\n');
    expect(() => read('AGENTS.md')).toThrow();
    expect((await send('GET', '/api/memory/proposals')).body['proposals']).toEqual([]);
    const all = await send('GET', '/api/memory/proposals?all=1');
    expect(all.body['proposals']).toMatchObject([{ status: 'accepted' }, { status: 'dismissed' }]);
  });

  it('answers 409 to a second decision, 404 to an unknown id and 400 to a bad one, changing nothing', async () => {
    const { send, read } = setup();
    expect((await send('POST', '/api/memory/proposals/1/dismiss')).status).toBe(200);
    for (const decision of ['accept', 'dismiss']) {
      const again = await send('POST', `/api/memory/proposals/1/${decision}`);
      expect(again).toEqual({
        status: 409,
        body: { error: { code: 'conflict', message: 'memory proposal 1 was dismissed already' } },
      });
      expect(await send('POST', `/api/memory/proposals/99/${decision}`)).toEqual({
        status: 404,
        body: { error: { code: 'not_found', message: 'there is no memory proposal 99' } },
      });
      for (const bad of ['abc', '0', '-1', '1.5', '1e3'])
        expect(await send('POST', `/api/memory/proposals/${bad}/${decision}`)).toMatchObject({
          status: 400,
          body: { error: { code: 'bad_request' } },
        });
    }
    expect(read('MEMORY.md')).toBe(MEMORY);
  });
});
