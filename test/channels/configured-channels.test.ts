import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configuredChannels } from '../../src/app/configured-channels.js';
import { MessageBus } from '../../src/bus/message-bus.js';
import type { InboundMessage } from '../../src/bus/messages.js';
import type { ChannelLedger, PairingAsk } from '../../src/channels/channel-ledger.js';
import { ChannelManager } from '../../src/channels/channel-manager.js';
import { channelsSectionSchema, toChannelsConfig } from '../../src/channels/channels-config.js';
import { silentLogger } from '../../src/util/logger.js';
import { type FakeTelegram, startFakeTelegram } from '../fakes/fake-telegram-server.js';
import { waitFor } from '../support/wren-home.js';

const TOKEN = '123456:TEST-token_abcdefghijklmnop';
const OTHER_TOKEN = '654321:OTHER-token_abcdefghijklmn';

/** The ledger's in-memory twin: every id is new once, no cursors kept across instances, nobody paired. */
function memoryLedger(): ChannelLedger {
  const seen = new Set<string>();
  const cursors = new Map<string, string>();
  return {
    firstSeen: (channel, chatId, platformId) => {
      const key = JSON.stringify([channel, chatId, platformId]);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    },
    cursor: (channel, key) => cursors.get(`${channel}:${key}`),
    setCursor: (channel, key, value) => void cursors.set(`${channel}:${key}`, value),
    deleteCursors: (channel, match) => {
      for (const key of [...cursors.keys()])
        if ('key' in match ? key === `${channel}:${match.key}` : key.startsWith(`${channel}:${match.prefix}`))
          cursors.delete(key);
    },
    isPaired: () => false,
    askPairing: (): PairingAsk => ({ kind: 'full' }),
  };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function fakeTelegram(token: string): Promise<FakeTelegram> {
  const telegram = await startFakeTelegram({ token });
  cleanups.push(() => telegram.close());
  return telegram;
}

function setup() {
  const bus = new MessageBus();
  const inbound: InboundMessage[] = [];
  bus.consumeInbound((message) => void inbound.push(message));
  const manager = new ChannelManager();
  const runner = configuredChannels({
    manager,
    bus,
    ledger: memoryLedger(),
    workspace: () => mkdtempSync(join(tmpdir(), 'wren-configured-')),
    extensions: join(tmpdir(), 'wren-configured-no-extensions'),
    secretKey: () => new Uint8Array(32),
    logger: silentLogger(),
    onMailTrigger: () => {},
  });
  cleanups.push(() => manager.stopAll());
  const apply = (channels: Record<string, unknown>) =>
    runner.apply(toChannelsConfig(channelsSectionSchema.parse(channels)));
  return { manager, inbound, apply };
}

const telegramSection = (apiRoot: string, extra: Record<string, unknown> = {}) => ({
  telegram: { token: TOKEN, owner: [4242], api_root: apiRoot, ...extra },
});

describe('configuredChannels (the registry run by `wren start`)', () => {
  it('starts an enabled platform; an edit of who may talk applies without a reconnect', async () => {
    const telegram = await fakeTelegram(TOKEN);
    const { manager, inbound, apply } = setup();
    await apply(telegramSection(telegram.apiRoot));
    const running = manager.get('telegram');
    expect(running).toBeDefined();
    await waitFor(() => running?.status().state === 'connected');
    telegram.pushMessage({ from: 7777, text: 'not yet allowed' });
    telegram.pushMessage({ from: 4242, text: 'from the owner' });
    await waitFor(() => inbound.length === 1);
    expect(inbound[0]).toMatchObject({ channel: 'telegram', senderId: '4242', text: 'from the owner' });

    await apply(telegramSection(telegram.apiRoot, { allow_from: [7777], progress: 'off', rate_limit: 5 }));
    expect(manager.get('telegram')).toBe(running);
    telegram.pushMessage({ from: 7777, text: 'allowed now' });
    await waitFor(() => inbound.length === 2);
    expect(inbound[1]).toMatchObject({ senderId: '7777', text: 'allowed now', fromOwner: false });
    expect(telegram.sent('getMe')).toHaveLength(1);
  });

  it('restarts a platform whose connection settings changed, and stops it when disabled or removed', async () => {
    const first = await fakeTelegram(TOKEN);
    const second = await fakeTelegram(OTHER_TOKEN);
    const { manager, apply } = setup();
    await apply(telegramSection(first.apiRoot));
    const before = manager.get('telegram');
    await waitFor(() => before?.status().state === 'connected');

    await apply(telegramSection(second.apiRoot, { token: OTHER_TOKEN }));
    const after = manager.get('telegram');
    expect(after).not.toBe(before);
    expect(before?.status().state).toBe('stopped');
    await waitFor(() => after?.status().state === 'connected');
    expect(second.sent('getMe')).toHaveLength(1);

    await apply(telegramSection(second.apiRoot, { token: OTHER_TOKEN, enabled: false }));
    expect(manager.get('telegram')).toBeUndefined();
    expect(after?.status().state).toBe('stopped');
    await apply(telegramSection(second.apiRoot, { token: OTHER_TOKEN }));
    expect(manager.get('telegram')).toBeDefined();
    await apply({});
    expect(manager.names()).toEqual([]);
  });

  it('starts nothing for a config that names no platform (transcription alone is not a channel)', async () => {
    const { manager, apply } = setup();
    await apply({ transcription: { base_url: 'http://127.0.0.1:9/v1' } });
    await apply({ telegram: { token: TOKEN, enabled: false } });
    expect(manager.names()).toEqual([]);
  });
});
