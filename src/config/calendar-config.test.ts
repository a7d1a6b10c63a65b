import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { secretValues } from '../app/built-in-registry.js';
import { calendarSecrets, titleMatches } from './calendar-config.js';
import { loadConfig } from './load-config.js';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'wren-calendar-config-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const write = (text: string) => writeFileSync(join(home, 'config.yaml'), text);

describe('calendars:', () => {
  it('is empty by default', () => {
    expect(loadConfig(home, {}).calendars).toEqual([]);
  });

  it('reads CalDAV accounts with ${VAR} passwords, ICS subscriptions and before rules', () => {
    write(
      [
        'calendars:',
        '  - name: work',
        '    caldav: {url: "https://cloud.example.com/remote.php/dav/calendars/sam/personal/", username: sam, password: "${NC_PASS}"}',
        '    before:',
        '      - minutes: 15',
        '        title: /standup|1:1/i',
        '      - duration: 1h',
        '        prompt: Prepare me for this meeting',
        '        deliver_to: [telegram:owner]',
        '  - name: holidays',
        '    ics: webcal://example.com/holidays.ics',
        '    sync_minutes: 360',
        '    before: 1d',
      ].join('\n'),
    );
    const config = loadConfig(home, { NC_PASS: 'app-password-123' });
    expect(config.calendars).toEqual([
      {
        name: 'work',
        source: {
          kind: 'caldav',
          url: 'https://cloud.example.com/remote.php/dav/calendars/sam/personal/',
          username: 'sam',
          password: 'app-password-123',
        },
        syncMs: 15 * 60_000,
        before: [
          {
            beforeMs: 15 * 60_000,
            title: '/standup|1:1/i',
            action: { kind: 'notify', template: '{{title}} at {{start}} ({{location}})' },
          },
          {
            beforeMs: 3_600_000,
            action: { kind: 'prompt', text: 'Prepare me for this meeting' },
            deliverTo: ['telegram:owner'],
          },
        ],
      },
      {
        name: 'holidays',
        source: { kind: 'ics', url: 'https://example.com/holidays.ics' },
        syncMs: 360 * 60_000,
        before: [
          {
            beforeMs: 86_400_000,
            action: { kind: 'notify', template: '{{title}} at {{start}} ({{location}})' },
          },
        ],
      },
    ]);
    expect(calendarSecrets(config.calendars)).toEqual([
      'app-password-123',
      'https://example.com/holidays.ics',
    ]);
    expect(secretValues(home, config, {})).toContain('app-password-123');
  });

  it('refuses entries with both or neither source, duplicate names and bad rules, saying what to do', () => {
    write(
      [
        'calendars:',
        '  - name: a',
        '    ics: https://example.com/a.ics',
        '    caldav: {url: "https://x.example/", username: u, password: p}',
        '  - name: b',
        '  - name: c',
        '    ics: https://example.com/c.ics',
        '    before: [{title: x}]',
        '  - name: c',
        '    ics: https://example.com/d.ics',
        '    before: [{minutes: 5, notify: hi, prompt: run}]',
        '  - name: e',
        '    ics: https://example.com/e.ics',
        '    before: [{minutes: 5, notify: hi, deliver_to: [the owner]}]',
      ].join('\n'),
    );
    expect(() => loadConfig(home, {})).toThrow(
      /either caldav[\s\S]*either caldav[\s\S]*say how long before[\s\S]*notify \(a text template\) or prompt[\s\S]*use channel:chat or webhook:name[\s\S]*"c" is used twice/,
    );
  });

  it('matches titles by /regex/ or case-insensitive substring', () => {
    expect(titleMatches('/^stand ?up$/i', 'Standup')).toBe(true);
    expect(titleMatches('review', 'Design Review')).toBe(true);
    expect(titleMatches('review', 'Lunch')).toBe(false);
    expect(titleMatches(undefined, 'anything')).toBe(true);
  });
});
