import { describe, expect, it } from 'vitest';
import { secretValues } from '../app/built-in-registry.js';
import { parseConfig } from './parse-config.js';

const parse = (yaml: string) =>
  parseConfig(yaml, { home: '/tmp/wren-home', file: 'config.yaml', env: { PW: 'app-pw' } });

describe('mail_watch config', () => {
  it('fills host, port and TLS from a preset, and defaults folders and polling', () => {
    const config = parse(
      'mail_watch:\n  - { name: me, preset: gmail, user: me@gmail.com, password: "${PW}", rules: [{ name: bank, from: "*@Bank.com", digest_minutes: 60 }] }\n',
    );
    expect(config.mailWatch).toEqual([
      {
        name: 'me',
        host: 'imap.gmail.com',
        port: 993,
        secure: true,
        user: 'me@gmail.com',
        password: 'app-pw',
        folders: ['INBOX'],
        pollMs: 60_000,
        rules: [{ name: 'bank', from: '*@bank.com', importantOnly: false, digestMs: 3_600_000 }],
        passwordHint: expect.stringContaining('app password'),
      },
    ]);
  });

  it('knows the common providers', () => {
    for (const [preset, host] of [
      ['outlook', 'outlook.office365.com'],
      ['icloud', 'imap.mail.me.com'],
      ['qq', 'imap.qq.com'],
      ['163', 'imap.163.com'],
      ['yahoo', 'imap.mail.yahoo.com'],
      ['fastmail', 'imap.fastmail.com'],
    ])
      expect(
        parse(
          `mail_watch:\n  - { name: a, preset: "${preset}", user: u, password: p, rules: [{ name: r }] }\n`,
        ).mailWatch[0]?.host,
      ).toBe(host);
  });

  it('counts the passwords as secrets, so the redactor keeps them out of logs', () => {
    const config = parse(
      'mail_watch:\n  - { name: a, host: h, user: u, password: "${PW}", rules: [{ name: r }] }\n',
    );
    expect(secretValues('/tmp/wren-home-none', config, {})).toContain('app-pw');
  });

  it('defaults to no accounts', () => {
    expect(parse('').mailWatch).toEqual([]);
  });

  it('rejects an account without host or preset, duplicate names and a rule on an unwatched folder', () => {
    expect(() => parse('mail_watch:\n  - { name: a, user: u, password: p, rules: [{ name: r }] }\n')).toThrow(
      /mail_watch\[0\]\.host: set host \(or a preset/,
    );
    expect(() =>
      parse(
        'mail_watch:\n  - { name: a, host: h, user: u, password: p, rules: [{ name: r }] }\n  - { name: a, host: h, user: u, password: p, rules: [{ name: r }] }\n',
      ),
    ).toThrow(/duplicate account name "a"/);
    expect(() =>
      parse(
        'mail_watch:\n  - { name: a, host: h, user: u, password: p, rules: [{ name: r, folder: Bills }] }\n',
      ),
    ).toThrow(/"Bills" is not watched: add it to folders/);
    expect(() => parse('mail_watch:\n  - { name: a, host: h, user: u, password: p, rules: [] }\n')).toThrow(
      /mail_watch\[0\]\.rules: must list at least 1 item/,
    );
  });
});
