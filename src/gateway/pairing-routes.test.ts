import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createPairingService } from '../services/pairing-service.js';
import { ChannelRepository } from '../store/channel-repository.js';
import { openDatabase } from '../store/open-database.js';
import { pairingRoutes } from './pairing-routes.js';

describe('pairing routes', () => {
  it('lists codes, approves one (admitting its sender), refuses unknown codes and revokes', async () => {
    const repository = new ChannelRepository(
      openDatabase(join(mkdtempSync(join(tmpdir(), 'wren-pair-')), 'wren.db')),
    );
    const now = 5_000;
    const asked = repository.askPairing(
      { channel: 'telegram', senderId: '77', chatId: '77', senderName: 'Ann' },
      now,
    );
    if (asked.kind !== 'new') throw new Error('expected a new code');
    const app = new Hono();
    app.route(
      '/',
      pairingRoutes(
        createPairingService(
          { channels: repository },
          { now: () => now + 1, timezone: () => 'UTC', defaultTargets: () => [] },
        ),
      ),
    );
    const listed = (await (await app.request('/api/pairings')).json()) as {
      pairings: Array<{ code: string }>;
    };
    expect(listed.pairings.map((pairing) => pairing.code)).toEqual([asked.pairing.code]);
    expect((await app.request('/api/pairings/ZZZZ2222/approve', { method: 'POST' })).status).toBe(404);
    const approved = await app.request(`/api/pairings/${asked.pairing.code.toLowerCase()}/approve`, {
      method: 'POST',
    });
    expect(approved.status).toBe(200);
    expect(repository.isPaired('telegram', '77')).toBe(true);
    expect((await app.request(`/api/pairings/${asked.pairing.code}`, { method: 'DELETE' })).status).toBe(200);
    expect(repository.isPaired('telegram', '77')).toBe(false);
    expect((await app.request(`/api/pairings/${asked.pairing.code}`, { method: 'DELETE' })).status).toBe(404);
  });
});
