import { describe, expect, it } from 'vitest';
import { MessageBus } from '../bus/message-bus.js';
import type { ChannelAccess } from './channel-access.js';
import type { ChannelLedger } from './channel-ledger.js';
import { DEFAULT_MAX_FILE_BYTES, type PlatformSettings, platformOptions } from './platform-options.js';

const ledger = {} as ChannelLedger;
const access = (owner: string): ChannelAccess => ({
  owner: [owner],
  allowFrom: [],
  pairing: false,
  groups: [],
  rateLimit: 20,
});

describe('platformOptions (a section mapped to what PlatformChannel reads)', () => {
  it('reads access, progress and the file cap from the section on every call, so an edit applies at once', () => {
    let section: PlatformSettings = { enabled: true, access: access('1'), progress: 'full', maxFileBytes: 5 };
    const bus = new MessageBus();
    const options = platformOptions('telegram', {
      bus,
      ledger,
      workspace: () => '/w',
      config: () => section,
    });
    expect(options.name).toBe('telegram');
    expect(options.bus).toBe(bus);
    expect(options.workspace?.()).toBe('/w');
    expect(options.access().owner).toEqual(['1']);
    expect(options.progress?.()).toBe('full');
    expect(options.maxFileBytes?.()).toBe(5);
    section = { enabled: true, access: access('2'), progress: 'hints', maxFileBytes: 7 };
    expect(options.access().owner).toEqual(['2']);
    expect(options.progress?.()).toBe('hints');
    expect(options.maxFileBytes?.()).toBe(7);
  });

  it('shows no progress and takes the default file cap for a section without those settings', () => {
    const options = platformOptions('feishu', {
      bus: new MessageBus(),
      ledger,
      workspace: () => '/w',
      config: () => ({ enabled: true, access: access('1') }),
    });
    expect(options.progress?.()).toBe('off');
    expect(options.maxFileBytes?.()).toBe(DEFAULT_MAX_FILE_BYTES);
    expect(DEFAULT_MAX_FILE_BYTES).toBe(20 * 1024 * 1024);
  });
});
