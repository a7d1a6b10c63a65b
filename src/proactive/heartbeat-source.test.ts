import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/support/fake-clock.js';
import { WorkspaceFileCache } from '../agent/workspace-files.js';
import { openDatabase } from '../store/open-database.js';
import { type Delivery, OutboxRepository, type OutboxRun } from '../store/outbox-repository.js';
import { activeHeartbeatItems, HEARTBEAT_STARTER } from './heartbeat-file.js';
import { HEARTBEAT_SESSION, heartbeatSource } from './heartbeat-source.js';
import { defaultProactiveConfig, type ProactiveConfig } from './proactive-config.js';
import { createRunExecutor } from './run-executor.js';
import { Scheduler } from './scheduler.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

describe('activeHeartbeatItems', () => {
  it('finds unchecked list items outside comments and code; the starter has none', () => {
    expect(activeHeartbeatItems(HEARTBEAT_STARTER)).toEqual([]);
    expect(
      activeHeartbeatItems('# Heartbeat\n\nSome prose.\n\n- [x] done already\n<!-- - hidden -->\n'),
    ).toEqual([]);
    expect(
      activeHeartbeatItems(
        [
          '# Checks',
          '- Check the inbox',
          '  * [ ] nested unchecked',
          '- [X] finished',
          '  - child of a finished item',
          '+ [ ] watch the build',
          '- [ ]',
          '* * *',
          '```',
          '- in a code block',
          '```',
          '<!--',
          '- commented',
          '-->',
          '1. numbered lists are prose here',
          '<!-- unclosed',
          '- after an unclosed comment',
        ].join('\n'),
      ),
    ).toEqual(['Check the inbox', 'nested unchecked', 'watch the build']);
  });
});

interface Setup {
  /** The model's answer to a heartbeat (default: something to tell). */
  reply?: string;
  heartbeat?: string;
  config?: Partial<ProactiveConfig>;
  timezone?: string;
  /** The longest the loop sleeps (default the real 30 s). */
  maxSleepMs?: number;
}

function setup(clock: FakeClock, options: Setup = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'wren-heartbeat-'));
  const db = openDatabase(join(dir, 'wren.db'));
  cleanups.push(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const file = join(dir, 'HEARTBEAT.md');
  const write = (text: string) => writeFileSync(file, text);
  write(options.heartbeat ?? HEARTBEAT_STARTER);
  const cache = new WorkspaceFileCache(dir);
  const state = {
    config: {
      ...defaultProactiveConfig(),
      heartbeatMs: 30 * MINUTE,
      deliverTo: ['telegram:1'],
      ...options.config,
    } as ProactiveConfig,
  };
  const outbox = new OutboxRepository(db, clock.now);
  const asked: OutboxRun[] = [];
  const delivered: Delivery[] = [];
  const executor = createRunExecutor({
    outbox,
    clock: clock.now,
    runAgent: async (run) => {
      asked.push(run);
      return { text: options.reply ?? 'The build is red.', failed: false };
    },
    deliverers: {
      channel: async (delivery) => {
        delivered.push(delivery);
      },
    },
  });
  const source = heartbeatSource({
    config: () => state.config,
    timezone: () => options.timezone ?? 'UTC',
    heartbeat: () => cache.read('HEARTBEAT.md'),
    outbox,
  });
  const loop = new Scheduler({
    sources: [source],
    executor,
    clock: clock.now,
    timers: clock,
    maxSleepMs: options.maxSleepMs ?? 30_000,
  });
  cleanups.push(() => loop.stop());
  const pass = async (ms: number) => {
    await clock.advance(ms);
    await loop.idle();
  };
  return { state, write, outbox, asked, delivered, loop, pass };
}

const slots = (runs: OutboxRun[]) => runs.map((run) => new Date(run.dueAt).toISOString().slice(11, 16));

describe('heartbeat source', () => {
  it('costs nothing while HEARTBEAT.md has no active items, then runs every 30 minutes once it has', async () => {
    const clock = new FakeClock(Date.parse('2026-06-01T09:00:00Z'));
    const { write, outbox, asked, delivered, loop, pass } = setup(clock);
    loop.start();
    await pass(3 * HOUR);
    expect(asked).toEqual([]);
    expect(outbox.runsOf('heartbeat', 'heartbeat')).toEqual([]);

    await pass(5 * MINUTE); // 12:05
    write('# Heartbeat\n- Check whether the build is red\n- [x] Renew the domain\n<!-- - Old check -->\n');
    await pass(MINUTE);
    expect(slots(asked)).toEqual(['12:00']);
    await pass(HOUR);
    expect(slots(asked)).toEqual(['12:00', '12:30', '13:00']);
    expect(asked[0]).toMatchObject({
      sourceKey: 'heartbeat:2026-06-01T12:00:00.000Z',
      kind: 'heartbeat',
      late: false,
      payload: {
        title: 'Heartbeat',
        mode: 'agent',
        autonomous: true,
        deliverTo: ['telegram:1'],
        sessionId: HEARTBEAT_SESSION,
      },
    });
    const prompt = asked[0]!.payload.text;
    expect(prompt).toContain('- Check whether the build is red');
    expect(prompt).not.toMatch(/Renew the domain|Old check/);
    expect(prompt).toContain('answer exactly [quiet]');
    expect(delivered.map((delivery) => delivery.target)).toEqual(['telegram:1', 'telegram:1', 'telegram:1']);
  });

  it('sends a [quiet] answer to the feed only', async () => {
    const clock = new FakeClock(Date.parse('2026-06-01T09:10:00Z'));
    const { outbox, asked, delivered, loop, pass } = setup(clock, {
      heartbeat: '- Check the inbox\n',
      reply: '[quiet] Inbox checked, nothing urgent.',
    });
    loop.start();
    await pass(MINUTE);
    expect(asked).toHaveLength(1);
    expect(delivered).toEqual([]);
    expect(outbox.feed()).toMatchObject([
      { kind: 'heartbeat', title: 'Heartbeat', quiet: true, text: 'Inbox checked, nothing urgent.' },
    ]);
  });

  it('holds during quiet hours that wrap midnight, in the owner’s zone, and runs when they end', async () => {
    // 20:50 in Berlin (CEST, UTC+2); quiet 22:00–07:00 local.
    const clock = new FakeClock(Date.parse('2026-06-01T18:50:00Z'));
    const { asked, loop, pass } = setup(clock, {
      heartbeat: '- Check the inbox\n',
      timezone: 'Europe/Berlin',
      config: { quietHours: { start: 22 * 60, end: 7 * 60 } },
      maxSleepMs: 6 * HOUR, // wakes only when the source says: at each slot, and when quiet hours end
    });
    loop.start();
    await pass(12 * HOUR); // to 08:50 local
    const local = asked.map((run) =>
      new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', timeStyle: 'short' }).format(run.dueAt),
    );
    expect(local).toEqual(['20:30', '21:00', '21:30', '07:00', '07:30', '08:00', '08:30']);
  });

  it('a slot that starts in quiet hours runs when they end (mid-slot)', async () => {
    const clock = new FakeClock(Date.parse('2026-06-01T06:00:00Z'));
    const { asked, loop, pass } = setup(clock, {
      heartbeat: '- Check the inbox\n',
      config: { quietHours: { start: 23 * 60, end: 7 * 60 + 10 } },
      maxSleepMs: 6 * HOUR,
    });
    loop.start();
    await pass(70 * MINUTE);
    expect(
      asked.map((run) => [slots([run])[0], new Date(run.claimedAt).toISOString().slice(11, 16)]),
    ).toEqual([['07:00', '07:10']]);
  });

  it('applies an interval or proactivity change at the next tick', async () => {
    const clock = new FakeClock(Date.parse('2026-06-01T10:00:00Z'));
    const { state, asked, loop, pass } = setup(clock, { heartbeat: '- Check the inbox\n' });
    loop.start();
    await pass(5 * MINUTE);
    expect(slots(asked)).toEqual(['10:00']);

    state.config = { ...state.config, heartbeatMs: 10 * MINUTE };
    await pass(30 * MINUTE); // 10:35
    expect(slots(asked)).toEqual(['10:00', '10:10', '10:20', '10:30']);

    state.config = { ...state.config, proactivity: 'off' };
    await pass(HOUR); // 11:35
    expect(asked).toHaveLength(4);

    state.config = { ...state.config, proactivity: 'high', heartbeatMs: 0 };
    await pass(HOUR); // 12:35
    expect(asked).toHaveLength(4);

    state.config = { ...state.config, heartbeatMs: 60 * MINUTE };
    await pass(30 * 1000);
    expect(slots(asked)).toEqual(['10:00', '10:10', '10:20', '10:30', '12:00']);
    expect(asked[4]!.payload.text).toContain('Speak up also for useful news');
    expect(asked[0]!.payload.text).toContain("Speak up when something needs the owner's attention");
  });
});
