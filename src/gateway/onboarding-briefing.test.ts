import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonSender, routeHarness } from '../../test/support/route-harness.js';
import { addModel } from '../config/config-writer.js';
import { loadConfig } from '../config/load-config.js';
import { STARTER_CONFIG } from '../config/starter-config.js';
import { onboardingRoutes } from './onboarding-routes.js';

/** `POST /api/onboarding/briefing`: the optional step after the model, turning the morning briefing on. */

const harness = routeHarness();

type Body = Record<string, unknown> & { error?: { code: string; message: string } };

/** A home as the model step leaves it: the starter config.yaml with the model just added. */
function setup() {
  const home = harness.folder('wren-onboard-briefing-');
  const file = join(home, 'config.yaml');
  writeFileSync(file, STARTER_CONFIG, { mode: 0o600 });
  addModel(home, { name: 'main', provider: 'ollama', model: 'qwen3:8b' }, {});
  const send = jsonSender<Body>(onboardingRoutes({ home, env: {} }));
  return {
    home,
    text: () => readFileSync(file, 'utf8'),
    turnOn: (body: unknown) => send('POST', '/api/onboarding/briefing', body),
  };
}

describe('onboarding: the morning briefing step', () => {
  it('turns the briefing on at the time and days given, keeping the model and the comments', async () => {
    const { home, text, turnOn } = setup();
    expect(await turnOn({ at: '7:30', days: 'weekdays' })).toEqual({
      status: 200,
      body: { at: '07:30', dayNames: ['mon', 'tue', 'wed', 'thu', 'fri'] },
    });
    const config = loadConfig(home, {});
    expect(config.briefing).toEqual({ at: '07:30', days: [1, 2, 3, 4, 5] });
    expect(config.models.map((model) => model.name)).toEqual(['main']);
    expect(text()).toContain('# Wren configuration.');
    expect(text()).toMatch(/^briefing:\n {2}at: "?07:30"?\n {2}days: weekdays$/m);

    // Without days: every day (the default of `briefing.days`).
    const daily = setup();
    expect((await daily.turnOn({ at: '06:00' })).body).toEqual({
      at: '06:00',
      dayNames: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'],
    });
    expect(daily.text()).toMatch(/^briefing:\n {2}at: "?06:00"?$/m);
    expect(daily.text()).not.toMatch(/^ {2}days:/m);
  });

  it('refuses a bad time or body with 400 and writes nothing', async () => {
    const { text, turnOn } = setup();
    const before = text();
    const timeRefused = 'The briefing time must look like 07:30 (HH:MM, 24-hour time); nothing was saved.';
    for (const at of ['24:00', '7', 'breakfast', '${WAKE_UP}']) {
      const answer = await turnOn({ at, days: 'daily' });
      expect(answer.status, at).toBe(400);
      expect(answer.body.error).toEqual({ code: 'bad_request', message: timeRefused });
    }
    const cases: Array<[unknown, RegExp]> = [
      [{}, /^at: /],
      [{ at: '' }, /^at: /],
      [{ at: '07:30', days: 'custom' }, /^days: /],
      [{ at: '07:30', weather: 'Berlin' }, /weather/],
      ['{"at": ', /JSON/],
    ];
    for (const [body, message] of cases) {
      const answer = await turnOn(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error?.message, JSON.stringify(body)).toMatch(message);
    }
    expect(text()).toBe(before);
  });
});
