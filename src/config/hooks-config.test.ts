import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findHook, hookSecrets } from './hooks-config.js';
import { loadConfig } from './load-config.js';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'wren-hooks-config-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const load = (text: string, env: Record<string, string> = {}) => {
  writeFileSync(join(home, 'config.yaml'), text);
  return loadConfig(home, env);
};
const SECRET = 'abcdefghijklmnopqrstuvwx';

describe('hooks: in config.yaml', () => {
  it('is empty by default', () => {
    expect(Object.keys(loadConfig(home, {}).hooks)).toEqual([]);
  });

  it('reads notify and prompt hooks with their secrets from the environment and defaults', () => {
    const config = load(
      [
        'hooks:',
        '  github:',
        '    secret: ${GITHUB_HOOK_SECRET}',
        '    notify: "{{repository.full_name}}: {{action}}"',
        '    deliver_to: [telegram:owner]',
        '  door_bell:',
        `    secret: ${SECRET}`,
        '    prompt: Tell me who rang.',
        '    rate_per_minute: "10"',
        '    max_body_kb: 64',
        '',
      ].join('\n'),
      { GITHUB_HOOK_SECRET: 'g'.repeat(32) },
    );
    expect(findHook(config.hooks, 'github')).toEqual({
      name: 'github',
      secret: 'g'.repeat(32),
      mode: 'notify',
      text: '{{repository.full_name}}: {{action}}',
      deliverTo: ['telegram:owner'],
      ratePerMinute: 60,
      maxBodyBytes: 1024 * 1024,
    });
    expect(findHook(config.hooks, 'door_bell')).toMatchObject({
      mode: 'prompt',
      text: 'Tell me who rang.',
      ratePerMinute: 10,
      maxBodyBytes: 64 * 1024,
    });
    expect(hookSecrets(config.hooks).sort()).toEqual([SECRET, 'g'.repeat(32)].sort());
    // Names are looked up among the configured hooks only.
    expect(findHook(config.hooks, 'constructor')).toBeUndefined();
    expect(findHook(config.hooks, '__proto__')).toBeUndefined();
  });

  it.each([
    ['a short secret', `hooks:\n  x:\n    secret: short\n    notify: hi\n`, 'at least 16 characters'],
    ['no secret', 'hooks:\n  x:\n    notify: hi\n', 'hooks.x.secret'],
    [
      'both modes',
      `hooks:\n  x:\n    secret: ${SECRET}\n    notify: a\n    prompt: b\n`,
      'exactly one of notify',
    ],
    ['neither mode', `hooks:\n  x:\n    secret: ${SECRET}\n`, 'exactly one of notify'],
    ['a bad name', `hooks:\n  Bad.Name:\n    secret: ${SECRET}\n    notify: a\n`, 'hook names are'],
    [
      'a bad target',
      `hooks:\n  x:\n    secret: ${SECRET}\n    notify: a\n    deliver_to: [nope]\n`,
      'channel:chat',
    ],
    ['an unknown key', `hooks:\n  x:\n    secret: ${SECRET}\n    notify: a\n    url: y\n`, 'url'],
  ])('refuses %s', (_what, text, message) => {
    expect(() => load(text)).toThrow(message);
  });
});
