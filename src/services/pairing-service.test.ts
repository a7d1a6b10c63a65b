import { describe, expect, it } from 'vitest';
import { routeHarness } from '../../test/support/route-harness.js';
import { ChannelRepository } from '../store/channel-repository.js';
import { createPairingService } from './pairing-service.js';

const harness = routeHarness();

function setup() {
  const { db } = harness.database('wren-pairingservice-');
  const channels = new ChannelRepository(db);
  let now = 5_000;
  const asked = channels.askPairing(
    { channel: 'telegram', senderId: '77', chatId: '77', senderName: 'Ann' },
    now,
  );
  if (asked.kind !== 'new') throw new Error('expected a new code');
  const context = { now: () => now, timezone: () => 'UTC', defaultTargets: () => [] };
  return {
    channels,
    code: asked.pairing.code,
    pairings: createPairingService({ channels }, context),
    later: (ms: number) => {
      now += ms;
    },
  };
}

describe('pairing service', () => {
  it('approves a pending code in any case, once', () => {
    const { pairings, code, channels } = setup();
    expect(pairings.list().map((pairing) => pairing.code)).toEqual([code]);
    expect(pairings.approve(code.toLowerCase())).toMatchObject({ ok: true, pairing: { senderId: '77' } });
    expect(channels.isPaired('telegram', '77')).toBe(true);
    expect(pairings.approve(code)).toEqual({
      ok: false,
      code: 'not_found',
      error: `No pending pairing code ${code} (codes expire after an hour).`,
    });
  });

  it('refuses an unknown or expired code', () => {
    const { pairings, code, later } = setup();
    expect(pairings.approve('zzzz2222')).toMatchObject({
      ok: false,
      code: 'not_found',
      error: 'No pending pairing code ZZZZ2222 (codes expire after an hour).',
    });
    later(2 * 3_600_000);
    expect(pairings.approve(code)).toMatchObject({ ok: false, code: 'not_found' });
  });

  it('revokes by code or by channel:id; what is not there is not found', () => {
    const { pairings, code, channels } = setup();
    pairings.approve(code);
    expect(pairings.revoke('telegram:99')).toEqual({
      ok: false,
      code: 'not_found',
      error: 'No pairing telegram:99.',
    });
    expect(pairings.revoke('telegram:77')).toEqual({ ok: true });
    expect(channels.isPaired('telegram', '77')).toBe(false);
    expect(pairings.revokeCode(code)).toMatchObject({ ok: false, code: 'not_found' });
    expect(pairings.revoke(':77')).toEqual({ ok: false, code: 'not_found', error: 'No pairing :77.' });
  });
});
