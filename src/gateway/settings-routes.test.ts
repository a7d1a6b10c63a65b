import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonSender, routeHarness } from '../../test/support/route-harness.js';
import { loadConfig } from '../config/load-config.js';
import { settingsRoutes } from './settings-routes.js';

const harness = routeHarness();

type Body = Record<string, unknown> & {
  error?: { code: string; message: string };
  settings?: Record<string, unknown>;
};

const TOKEN = 'a-gateway-token-of-some-length-0123';

/** No `backup:` and no `retention:`: the defaults (docs/configuration.md). */
const UNSCHEDULED = { scheduled: false };
const RETENTION_DEFAULTS = {
  messagesDays: 365,
  outboxDays: 90,
  auditDays: 90,
  feedDays: 90,
  execLogDays: 30,
};
/** No `briefing:`: off, every day once turned on, no weather. */
const BRIEFING_OFF = {
  briefingAt: '',
  briefingDays: 'daily',
  briefingWeather: '',
  briefingDayNames: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'],
};
const DEFAULTS = { backup: UNSCHEDULED, retention: RETENTION_DEFAULTS, ...BRIEFING_OFF };

const CONFIG = `# My Wren: hand-written, keep this comment
gateway:
  token: \${WREN_GATEWAY_TOKEN} # from .env
proactive:
  proactivity: low # chatty enough
agent:
  timezone: UTC
`;

function setup(config: string | null = CONFIG, dotEnv = `WREN_GATEWAY_TOKEN=${TOKEN}\n`) {
  const home = harness.folder('wren-settings-');
  if (config !== null) writeFileSync(join(home, 'config.yaml'), config, { mode: 0o600 });
  writeFileSync(join(home, '.env'), dotEnv, { mode: 0o600 });
  const env = {};
  // The config in force when the app started (what GET falls back to while the file is broken).
  const inForce = loadConfig(home, env);
  const app = settingsRoutes({ home, env, config: () => inForce });
  const file = join(home, 'config.yaml');
  const request = jsonSender<Body>(app);
  const send = (method: string, body?: unknown) => request(method, '/api/settings', body);
  return { home, file, send, text: () => readFileSync(file, 'utf8') };
}

describe('settings routes', () => {
  it('reads the settings from config.yaml, defaults filled in', async () => {
    const { send } = setup();
    expect(await send('GET')).toEqual({
      status: 200,
      body: {
        proactivity: 'low',
        quietHours: null,
        gateMode: 'ask',
        timezone: 'UTC',
        configError: null,
        ...DEFAULTS,
      },
    });
  });

  it('shows the backup schedule of `backup:` (its folder resolved against the home) and retention overrides', async () => {
    const { send, home } = setup(
      `${CONFIG}backup:\n  every: 1d\n  keep: 3\nretention:\n  messages_days: 0\n  exec_log_days: 7\n`,
    );
    const { body } = await send('GET');
    expect(body['backup']).toEqual({ scheduled: true, every: '1 day', keep: 3, to: join(home, 'backups') });
    // The folder the backup service writes scheduled archives to: `backup.dir` of the loaded config.
    expect(body['backup']).toMatchObject({ to: loadConfig(home, {}).backup.dir });
    expect(body['retention']).toEqual({ ...RETENTION_DEFAULTS, messagesDays: 0, execLogDays: 7 });

    const elsewhere = harness.folder('wren-settings-backups-');
    const other = setup(`${CONFIG}backup: { every: 36h, to: ${elsewhere} }\n`);
    expect((await other.send('GET')).body['backup']).toEqual({
      scheduled: true,
      every: '36 hours',
      keep: 7,
      to: elsewhere,
    });
    const weekly = setup(`${CONFIG}backup: { every: 2w, to: archive/wren }\n`);
    expect((await weekly.send('GET')).body['backup']).toEqual({
      scheduled: true,
      every: '2 weeks',
      keep: 7,
      to: join(weekly.home, 'archive', 'wren'),
    });
  });

  it('shows no schedule for a `backup:` without `every` (nothing is scheduled then)', async () => {
    const { send } = setup(`${CONFIG}backup:\n  keep: 3\n`);
    expect((await send('GET')).body).toMatchObject(DEFAULTS);
  });

  it('writes a change through config.yaml, keeping comments and ${VAR} placeholders', async () => {
    const { send, text, home } = setup();
    const answer = await send('PATCH', {
      proactivity: 'high',
      quietHours: '22:30-07:00',
      gateMode: 'strict',
      timezone: 'Europe/Berlin',
    });
    const expected = {
      proactivity: 'high',
      quietHours: '22:30-07:00',
      gateMode: 'strict',
      timezone: 'Europe/Berlin',
      configError: null,
      ...DEFAULTS,
    };
    expect(answer).toEqual({ status: 200, body: { settings: expected } });
    const written = text();
    expect(written).toContain('# My Wren: hand-written, keep this comment');
    expect(written).toContain('token: ${WREN_GATEWAY_TOKEN} # from .env');
    expect(written).toContain('proactivity: high # chatty enough');
    expect(written).not.toContain(TOKEN);
    expect(readFileSync(join(home, '.env'), 'utf8')).toBe(`WREN_GATEWAY_TOKEN=${TOKEN}\n`);
    // What the app's reload will load, and what GET answers from now on.
    const loaded = loadConfig(home, {});
    expect(loaded.proactive.quietHours).toEqual({ start: 22 * 60 + 30, end: 7 * 60 });
    expect(loaded.gate.mode).toBe('strict');
    expect(loaded.gateway.token).toBe(TOKEN);
    expect((await send('GET')).body).toEqual(expected);
  });

  it('clears quiet hours (and the time zone) with null, and leaves other keys as they were', async () => {
    const { send, text } = setup();
    await send('PATCH', { quietHours: '23:00-06:30' });
    expect(text()).toContain('quiet_hours: 23:00-06:30');
    const cleared = await send('PATCH', { quietHours: null, timezone: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.settings).toMatchObject({ quietHours: null, proactivity: 'low' });
    expect(text()).not.toContain('quiet_hours');
    expect(text()).not.toContain('timezone');
    expect(text()).toContain('proactivity: low # chatty enough');
  });

  it('refuses quiet hours that are not HH:MM-HH:MM with one plain sentence, writing nothing', async () => {
    const { send, text, file } = setup();
    const before = text();
    const hostile = [
      '25:00-07:00',
      '22:30',
      '',
      '07:00-7:30',
      '22:00-07:00\nproactivity: high',
      '２２:００-07:00',
    ];
    for (const quietHours of [...hostile, `22:00-07:00 ${'x'.repeat(40)}`]) {
      const answer = await send('PATCH', { proactivity: 'high', quietHours });
      expect(answer.status, quietHours).toBe(400);
      expect(answer.body.error).toEqual({
        code: 'bad_request',
        message: 'Quiet hours must look like 22:00-07:00 (HH:MM-HH:MM, 24-hour time); nothing was saved.',
      });
      expect(JSON.stringify(answer.body)).not.toContain(file);
      expect(text()).toBe(before);
    }
  });

  it('refuses a change the config would reject with 400, naming config.yaml at most once and never its path', async () => {
    const { send, text, file } = setup();
    const before = text();
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [
        { timezone: 'Mars/Olympus_Mons' },
        /^Not saved — config\.yaml would be invalid: agent\.timezone: unknown time zone/,
      ],
      [{ gateMode: 'auto', timezone: 'Nowhere/At_All' }, /agent\.timezone/],
    ];
    for (const [body, message] of cases) {
      const answer = await send('PATCH', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error?.code).toBe('bad_request');
      const said = answer.body.error?.message ?? '';
      expect(said, JSON.stringify(body)).toMatch(message);
      expect(said).not.toContain(file);
      expect(said.split('config.yaml').length - 1).toBeLessThanOrEqual(1);
      expect(text()).toBe(before);
    }
  });

  it('refuses ${ in a free-text setting (config.yaml would expand it) and writes nothing', async () => {
    const { send, text, home } = setup();
    const before = text();
    const refusal =
      /^(timezone|quietHours): `\$\{` is not allowed here: config\.yaml would read it as an environment variable/;
    const cases = [
      { timezone: '${WREN_GATEWAY_TOKEN}' },
      { timezone: '${TZ_FROM_ENV:-Europe/Berlin}' },
      { quietHours: '${QUIET:-22:00-07:00}' },
      { quietHours: '22:00-07:00$${' },
      { gateMode: 'strict', timezone: 'Europe/${' },
    ];
    for (const body of cases) {
      const answer = await send('PATCH', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error?.code).toBe('bad_request');
      expect(answer.body.error?.message, JSON.stringify(body)).toMatch(refusal);
      expect(JSON.stringify(answer.body)).not.toContain(TOKEN);
      expect(text()).toBe(before);
    }
    expect(loadConfig(home, {}).gate.mode).toBe('ask');
  });

  it('refuses malformed bodies, wrong types, unknown keys and values outside the enums with 400', async () => {
    const { send, text } = setup();
    const before = text();
    const cases: Array<[unknown, RegExp]> = [
      ['{"proactivity": ', /JSON/],
      ['["high"]', /expected object/],
      ['null', /expected object/],
      [{ proactivity: 3 }, /^proactivity: /],
      [{ proactivity: 'sometimes' }, /^proactivity: /],
      [{ gateMode: 'yolo' }, /^gateMode: /],
      [{ quietHours: 2230 }, /^quietHours: /],
      [{ timezone: '' }, /^timezone: /],
      [{ theme: 'dark' }, /theme/],
      [{ quiet_hours: '22:00-07:00' }, /quiet_hours/],
      // Read-only here: the schedule and retention are edited in config.yaml.
      [{ backup: { every: '1d' } }, /backup/],
      [{ retention: { feedDays: 7 } }, /retention/],
    ];
    for (const [body, message] of cases) {
      const answer = await send('PATCH', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error?.code).toBe('bad_request');
      expect(answer.body.error?.message, JSON.stringify(body)).toMatch(message);
    }
    const huge = await send('PATCH', { timezone: 'x'.repeat(20_000) });
    expect(huge.status).toBe(413);
    expect(huge.body.error?.code).toBe('too_large');
    expect(text()).toBe(before);
  });

  it('while config.yaml is broken: GET shows the config in force and why, PATCH writes nothing', async () => {
    const { send, text, file } = setup();
    const broken = `${CONFIG}web:\n  search:\n    api_key: \${UNSET_SEARCH_KEY}\n`;
    writeFileSync(file, broken);
    const got = await send('GET');
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ proactivity: 'low', timezone: 'UTC' });
    expect(got.body['configError']).toMatch(/UNSET_SEARCH_KEY/);
    const patched = await send('PATCH', { gateMode: 'auto' });
    expect(patched.status).toBe(400);
    expect(patched.body.error?.message).toMatch(/UNSET_SEARCH_KEY/);
    expect(text()).toBe(broken);
  });

  it('starts config.yaml from the commented template when there is none, and fills an empty section', async () => {
    const fresh = setup(null);
    const answer = await fresh.send('PATCH', { gateMode: 'auto' });
    expect(answer.status).toBe(200);
    expect(answer.body.settings).toMatchObject({ gateMode: 'auto', proactivity: 'default' });
    expect(fresh.text()).toContain('# Wren configuration.');
    expect(fresh.text()).toMatch(/^gate:\n {2}mode: auto$/m);

    const empty = setup('proactive: # settings to come\nagent:\n  timezone: UTC\n');
    const filled = await empty.send('PATCH', { proactivity: 'off', quietHours: '22:00-06:00' });
    expect(filled.status).toBe(200);
    expect(filled.body.settings).toMatchObject({ proactivity: 'off', quietHours: '22:00-06:00' });
    expect(loadConfig(empty.home, {}).proactive.proactivity).toBe('off');
    expect(empty.text()).toContain('# settings to come');
  });

  it('shows the morning briefing of `briefing:`: its time, days as a word (or custom) and weather place', async () => {
    const on = setup(`${CONFIG}briefing:\n  at: "7:30"\n  days: weekdays\n  weather: Berlin\n`);
    expect((await on.send('GET')).body).toMatchObject({
      briefingAt: '07:30',
      briefingDays: 'weekdays',
      briefingWeather: 'Berlin',
      briefingDayNames: ['mon', 'tue', 'wed', 'thu', 'fri'],
    });
    // A list naming the same days as a word shows as that word; any other list is custom.
    const same = setup(`${CONFIG}briefing:\n  at: "06:00"\n  days: [sun, sat]\n`);
    expect((await same.send('GET')).body).toMatchObject({ briefingDays: 'weekends' });
    const custom = setup(`${CONFIG}briefing:\n  at: "06:00"\n  days: [thu, mon]\n`);
    expect((await custom.send('GET')).body).toMatchObject({
      briefingAt: '06:00',
      briefingDays: 'custom',
      briefingDayNames: ['mon', 'thu'],
      briefingWeather: '',
    });
  });

  it('turns the briefing on, changes it and turns it off in `briefing:`, keeping the rest of the file', async () => {
    const { send, text, home } = setup();
    const on = await send('PATCH', {
      briefingAt: '7:30',
      briefingDays: 'weekdays',
      briefingWeather: 'Berlin',
    });
    expect(on).toMatchObject({
      status: 200,
      body: { settings: { briefingAt: '07:30', briefingDays: 'weekdays', briefingWeather: 'Berlin' } },
    });
    expect(text()).toMatch(/^briefing:\n {2}at: "?07:30"?\n {2}days: weekdays\n {2}weather: Berlin$/m);
    expect(text()).toContain('proactivity: low # chatty enough');
    expect(loadConfig(home, {}).briefing).toEqual({ at: '07:30', days: [1, 2, 3, 4, 5], weather: 'Berlin' });

    const changed = await send('PATCH', { briefingAt: '06:45', briefingDays: 'daily' });
    expect(changed.body.settings).toMatchObject({
      briefingAt: '06:45',
      briefingDays: 'daily',
      briefingWeather: 'Berlin',
    });
    expect(loadConfig(home, {}).briefing).toMatchObject({ at: '06:45', days: [0, 1, 2, 3, 4, 5, 6] });

    // '' turns it off (and clears the weather); the days stay for the next time it is turned on.
    const off = await send('PATCH', { briefingAt: '', briefingWeather: '' });
    expect(off.status).toBe(200);
    expect(off.body.settings).toMatchObject({ briefingAt: '', briefingWeather: '', briefingDays: 'daily' });
    expect(loadConfig(home, {}).briefing.at).toBeUndefined();
    expect(text()).not.toMatch(/at: |weather:/);
    // null turns it off as well; with nothing left the section goes.
    await send('PATCH', { briefingAt: '08:00' });
    await send('PATCH', { briefingAt: null });
    expect(loadConfig(home, {}).briefing.at).toBeUndefined();
  });

  /** The list as written (the YAML writer pads a flow list: `[ mon, thu ]`), its comment kept. */
  const GYM_DAYS = /^ {2}days: \[ ?mon, thu ?\] # gym days$/m;

  it('keeps a custom list of days through changes that do not name the days; a word chosen replaces it', async () => {
    const { send, text, home } = setup(`${CONFIG}briefing:\n  at: "07:00"\n  days: [mon, thu] # gym days\n`);
    const moved = await send('PATCH', {
      briefingAt: '06:15',
      briefingWeather: 'Hamburg',
      gateMode: 'strict',
    });
    expect(moved.body.settings).toMatchObject({
      briefingAt: '06:15',
      briefingDays: 'custom',
      briefingDayNames: ['mon', 'thu'],
    });
    expect(text()).toMatch(GYM_DAYS);
    await send('PATCH', { briefingAt: '' });
    await send('PATCH', { briefingAt: '07:00' });
    expect(text()).toMatch(GYM_DAYS);
    expect(loadConfig(home, {}).briefing.days).toEqual([1, 4]);

    // 'custom' itself is only shown: it cannot be sent.
    const refused = await send('PATCH', { briefingDays: 'custom' });
    expect(refused.status).toBe(400);
    expect(refused.body.error?.message).toMatch(/^briefingDays: /);
    expect(text()).toMatch(GYM_DAYS);

    const weekends = await send('PATCH', { briefingDays: 'weekends' });
    expect(weekends.body.settings).toMatchObject({
      briefingDays: 'weekends',
      briefingDayNames: ['sun', 'sat'],
    });
    expect(text()).not.toMatch(/mon, thu/);
  });

  it('refuses a briefing time that is not HH:MM with one plain sentence, writing nothing', async () => {
    const { send, text, file } = setup(`${CONFIG}briefing:\n  at: "07:30"\n`);
    const before = text();
    for (const briefingAt of [
      '25:00',
      '7.30',
      '07:60',
      'seven',
      '07:30-08:00',
      '07:30\nweather: x',
      '${AT}',
    ]) {
      const answer = await send('PATCH', { briefingAt, briefingDays: 'weekdays', gateMode: 'auto' });
      expect(answer.status, briefingAt).toBe(400);
      expect(answer.body.error).toEqual({
        code: 'bad_request',
        message: 'The briefing time must look like 07:30 (HH:MM, 24-hour time); nothing was saved.',
      });
      expect(JSON.stringify(answer.body)).not.toContain(file);
      expect(text()).toBe(before);
    }
    const placeholder = await send('PATCH', { briefingWeather: '${HOME_TOWN}' });
    expect(placeholder.status).toBe(400);
    expect(placeholder.body.error?.message).toMatch(/^briefingWeather: `\$\{` is not allowed here/);
    expect(text()).toBe(before);
  });

  it('answers an empty change with the settings and leaves the file byte for byte', async () => {
    const { send, text } = setup();
    const before = text();
    expect(await send('PATCH', {})).toMatchObject({
      status: 200,
      body: { settings: { proactivity: 'low' } },
    });
    expect(text()).toBe(before);
  });
});
