import { describe, expect, it } from 'vitest';
import {
  type ChannelsConfig,
  channelSecrets,
  channelsSectionSchema,
  platformConfig,
  registeredPlatforms,
  toChannelsConfig,
} from './channels-config.js';
import type { TelegramConfig } from './telegram/telegram-config.js';

/** One valid section per registered platform, with a secret each that is easy to spot. */
const SECTIONS: Record<string, Record<string, unknown>> = {
  telegram: {
    token: '123456:SECRET-telegram',
    owner: [42],
    mode: 'webhook',
    webhook: { url: 'https://example.com/tg', secret: 'SECRET-webhook-0123456' },
  },
  email: { address: 'wren@example.com', password: 'SECRET-mail', preset: 'gmail', owner: ['me@example.com'] },
  slack: { bot_token: 'xoxb-SECRET-bot', app_token: 'xapp-SECRET-app', owner: ['U123'] },
  discord: { token: 'SECRET-discord-token-0123456789', owner: ['123456789012345678'] },
  wecom: { bot_id: 'bot-1', secret: 'SECRET-wecom', owner: ['zhangsan'] },
  feishu: { app_id: 'cli_0123456789abcdef', app_secret: 'SECRET-feishu', owner: ['ou_0123456789abcdef'] },
  dingtalk: { client_id: 'dingabc123', client_secret: 'SECRET-dingtalk', owner: ['manager1234'] },
  qq: { app_id: '102012345', app_secret: 'SECRET-qq-app', owner: ['E4F4AEA33253A2797FB897C50B81D7ED'] },
  signal: { account: '+15550100001', token: 'SECRET-signal-proxy', owner: ['+15550100002'] },
  mattermost: {
    url: 'https://chat.example.com',
    token: 'secretmattermost0123456789',
    owner: ['owneruser00000000000000001'],
  },
  matrix: {
    homeserver: 'https://matrix.example.org',
    access_token: 'syt_SECRET-matrix',
    owner: ['@me:example.org'],
  },
  // No secret in config.yaml: its session is made by linking and kept sealed in the database.
  whatsapp: { owner: ['+4915112345678'] },
};

const parse = (channels: Record<string, unknown>) => toChannelsConfig(channelsSectionSchema.parse(channels));

describe('the platform registry', () => {
  it('is what `channels:` accepts: one section per registered platform (in registry order) and transcription', () => {
    const names = registeredPlatforms.map((platform) => platform.name);
    expect(new Set(names).size).toBe(names.length);
    expect(Object.keys(channelsSectionSchema.shape)).toEqual([...names, 'transcription']);
    expect(Object.keys(SECTIONS).sort()).toEqual([...names].sort());
    expect(Object.keys(parse(SECTIONS))).toEqual(names);
  });

  it('refuses a platform it does not list and hostile keys, instead of ignoring them', () => {
    expect(() => parse({ irc: { token: 'x' } })).toThrow(/irc/);
    expect(() => parse(JSON.parse('{"__proto__": {"enabled": true}}'))).toThrow();
    expect(() => parse({ constructor: {} })).toThrow();
    expect(() => parse({ telegram: { token: 'not a token' } })).toThrow(/bot token/);
  });

  it('keeps each section typed as its platform reads it', () => {
    const config: ChannelsConfig = parse({ telegram: SECTIONS['telegram'] });
    const telegram: TelegramConfig | undefined = config.telegram;
    expect(telegram?.webhook).toMatchObject({ host: '127.0.0.1', port: 8443 });
    expect(platformConfig(config, 'telegram')).toBe(telegram);
    expect(platformConfig(config, 'slack')).toBeUndefined();
    expect(platformConfig(config, 'toString')).toBeUndefined();
    expect(
      platformConfig(parse({ transcription: { base_url: 'http://127.0.0.1:9/v1' } }), 'transcription'),
    ).toBeUndefined();
  });

  it("gives the redactor every platform's secrets and the transcription key", () => {
    const config = parse({
      ...SECTIONS,
      transcription: { base_url: 'http://127.0.0.1:9/v1', api_key: 'SECRET-stt' },
    });
    expect(channelSecrets(config).sort()).toEqual(
      [
        '123456:SECRET-telegram',
        'SECRET-webhook-0123456',
        'SECRET-mail',
        'xoxb-SECRET-bot',
        'xapp-SECRET-app',
        'SECRET-discord-token-0123456789',
        'SECRET-wecom',
        'SECRET-feishu',
        'SECRET-dingtalk',
        'SECRET-qq-app',
        'secretmattermost0123456789',
        'SECRET-signal-proxy',
        'syt_SECRET-matrix',
        'SECRET-stt',
      ].sort(),
    );
    expect(channelSecrets(parse({}))).toEqual([]);
  });

  it('restarts a platform for a connection edit only: who may talk, progress and limits are read per message', () => {
    for (const platform of registeredPlatforms) {
      const base = SECTIONS[platform.name]!;
      const key = (section: Record<string, unknown>) =>
        JSON.stringify(
          platform.connection(platformConfig(parse({ [platform.name]: section }), platform.name)!),
        );
      const edited = { ...base, allow_from: ['*'], pairing: true, rate_limit: 3, groups: ['1'] };
      expect(key(edited), platform.name).toBe(key(base));
      const secrets = platform.secrets(platformConfig(parse({ [platform.name]: base }), platform.name)!);
      // A linked device's credential is not in config.yaml (see SECTIONS): nothing there reconnects it.
      if (platform.name === 'whatsapp') {
        expect(secrets).toEqual([]);
        continue;
      }
      const secret = secrets[0]!;
      // Every platform's first secret is its credential: a new one means a new connection.
      const rotated = JSON.parse(JSON.stringify(base).replace(secret, `${secret}X`)) as Record<
        string,
        unknown
      >;
      expect(key(rotated), platform.name).not.toBe(key(base));
    }
  });
});
