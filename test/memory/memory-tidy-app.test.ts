import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type WrenApp } from '../../src/app/create-app.js';
import type { ScheduleEvent } from '../../src/bus/messages.js';
import { openDatabase } from '../../src/store/open-database.js';
import { ScriptedModel } from '../support/scripted-model.js';
import { makeHome, waitFor } from '../support/wren-home.js';

const BEFORE =
  '# Memory\n\n- Has a dog named Rex.\n- Lives in Berlin.\n- Rex is a golden retriever.\n- Lives in Munich now.\n';
const TIDIED = '# Memory\n\n- Has a dog named Rex, a golden retriever.\n- Lives in Munich now.\n';

const apps: WrenApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close(1000);
});

async function app(config: string, model: ScriptedModel) {
  const wren = await createApp({
    home: makeHome(config),
    model,
    probeLocalModels: false,
    env: { PATH: process.env['PATH'] },
  });
  apps.push(wren);
  writeFileSync(join(wren.config().workspace, 'MEMORY.md'), BEFORE);
  return wren;
}

describe('memory tidy in the app', () => {
  it('is on by default with a model: the first pass waits for the next 03:00, nothing runs at start', async () => {
    const model = new ScriptedModel();
    const wren = await app('agent:\n  timezone: UTC\n', model);
    expect(wren.config().memory.dream.every).toBe('0 3 * * *');
    const before = Date.now();
    expect(wren.proactive.start()).toBe(true);
    await wren.proactive.stop(1000);
    expect(model.requests).toEqual([]);
    expect(wren.proactive.outbox.runsOf('tidy', 'memory')).toEqual([]);
    const state = JSON.parse(wren.settings.get('memory.tidy.schedule')!) as { nextAt: number };
    const next = new Date(state.nextAt);
    expect([next.getUTCHours(), next.getUTCMinutes()]).toEqual([3, 0]);
    expect(state.nextAt).toBeGreaterThan(before);
    expect(state.nextAt - before).toBeLessThanOrEqual(24 * 60 * 60_000);
    expect(readFileSync(join(wren.config().workspace, 'MEMORY.md'), 'utf8')).toBe(BEFORE);
  });

  it('stays off with `dream.every: off`, and without any model', async () => {
    const model = new ScriptedModel();
    const off = await app('memory:\n  dream:\n    every: "off"\n', model);
    expect(off.config().memory.dream.every).toBeUndefined();
    off.proactive.start();
    await off.proactive.stop(1000);
    expect(off.settings.get('memory.tidy.schedule')).toBeUndefined();

    const bare = await createApp({
      home: makeHome('{}\n'),
      probeLocalModels: false,
      env: { PATH: process.env['PATH'] },
    });
    apps.push(bare);
    bare.proactive.start();
    await bare.proactive.stop(1000);
    expect(bare.settings.get('memory.tidy.schedule')).toBeUndefined();
    expect(model.requests).toEqual([]);
  });

  it('waits for the owner to be idle before a due pass, and runs once they are', async () => {
    const model = new ScriptedModel().script(
      { text: 'Hello.' },
      { toolCalls: [{ name: 'save_tidy', arguments: { memory_md: TIDIED } }] },
    );
    const wren = await app('agent:\n  timezone: UTC\nmemory:\n  dream:\n    idle_minutes: 0\n', model);
    wren.settings.set(
      'memory.tidy.schedule',
      JSON.stringify({ every: '0 3 * * *', timezone: 'UTC', nextAt: Date.now() - 60_000 }),
    );
    // With an idle wait of 0 the owner's turn does not hold the pass back.
    await wren.bus.request({
      id: 'm1',
      channel: 'cli',
      senderId: 'owner',
      fromOwner: true,
      chatId: 't',
      text: 'hi',
    });
    wren.proactive.start();
    await waitFor(() => wren.proactive.outbox.feed().length > 0);
    expect(readFileSync(join(wren.config().workspace, 'MEMORY.md'), 'utf8')).toBe(TIDIED);
  });

  it('runs a due slot through the scheduler with the configured model tag and records its usage', async () => {
    const model = new ScriptedModel().script({
      toolCalls: [{ name: 'save_tidy', arguments: { memory_md: TIDIED } }],
    });
    const wren = await app(
      'agent:\n  timezone: UTC\nmemory:\n  model_tag: nightly\n  tidy:\n    every: "0 3 * * *"\n',
      model,
    );
    // The slot came due while Wren was not running.
    const slot = Date.now() - 60 * 60_000;
    wren.settings.set(
      'memory.tidy.schedule',
      JSON.stringify({ every: '0 3 * * *', timezone: 'UTC', nextAt: slot }),
    );
    const events: ScheduleEvent[] = [];
    wren.bus.subscribeSchedule((event) => events.push(event));
    wren.proactive.start();
    await waitFor(() => wren.proactive.outbox.feed().length > 0);
    expect(readFileSync(join(wren.config().workspace, 'MEMORY.md'), 'utf8')).toBe(TIDIED);
    expect(wren.proactive.outbox.feed()).toMatchObject([{ kind: 'tidy', quiet: true, late: true }]);
    expect(wren.proactive.outbox.runsOf('tidy', 'memory')[0]!.sourceKey).toBe(
      `tidy:${new Date(slot).toISOString()}`,
    );
    expect(model.requests.map((request) => request.tag)).toEqual(['nightly']);
    // No turn ran: the tidy is not a conversation.
    expect(await wren.sessions.listSessions(10)).toEqual([]);
    await waitFor(() => events.some((event) => event.type === 'feed'));
    const db = openDatabase(join(wren.home, 'wren.db'));
    const usage = db.prepare('SELECT endpoint, input_tokens AS input FROM usage').all();
    db.close();
    expect(usage).toEqual([{ endpoint: 'scripted', input: 10 }]);
  });

  it('refuses a schedule that is not a 5-field cron, naming the key', async () => {
    await expect(
      createApp({
        home: makeHome('memory:\n  tidy:\n    every: "every night"\n'),
        model: new ScriptedModel(),
        probeLocalModels: false,
        env: { PATH: process.env['PATH'] },
      }),
    ).rejects.toThrow(/memory\.tidy\.every.*"every night" is not a usable schedule \(has 2 fields, not 5\)/);
    await expect(
      createApp({
        home: makeHome('memory:\n  tidy:\n    every: "0 3 * * *"\n    at: night\n'),
        model: new ScriptedModel(),
        probeLocalModels: false,
        env: { PATH: process.env['PATH'] },
      }),
    ).rejects.toThrow(/memory\.tidy/);
  });
});
