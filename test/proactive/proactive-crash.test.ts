import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withHome } from '../../src/app/open-home.js';
import { openDatabase } from '../../src/store/open-database.js';
import { between, crashSeed, prng } from '../support/crash-seed.js';
import { cliEnv, makeHome, type RunningWren, startWren, waitFor } from '../support/wren-home.js';

/** What the webhook sink saw: one entry per POST, with the idempotency key. */
const received: Array<{ key: string; at: number }> = [];
let mismatched = 0;
/** POSTs the sink has read but not yet answered (and recorded). */
let answering = 0;
let sink: Server;

const SEED = crashSeed();
/** Kill points draw from one stream, the sink's delays from another, so a replay keeps both. */
const killRandom = prng(SEED);
const sinkRandom = prng(SEED ^ 0x5eed);
let sinkUrl = '';

beforeAll(async () => {
  sink = createServer((request, response) => {
    answering++;
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      const key = String(request.headers['idempotency-key'] ?? '');
      const parsed = JSON.parse(body) as { key: string };
      if (parsed.key !== key) mismatched++;
      // A short, random wait widens the window between "sent" and "marked sent" for the kills to land in.
      setTimeout(
        () => {
          received.push({ key, at: Date.now() });
          answering--;
          response.end('ok');
        },
        between(sinkRandom, 0, 40),
      );
    });
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise((resolve) => sink.close(resolve)));

const ITERATIONS = 50;
const REMINDERS = 150;
/** Reminders come due this often, over the whole run, so kills land in claims, runs and deliveries. */
const SPACING_MS = 400;

/** Runs `use` on a connection of its own to the home's wren.db (raw counts the stores do not offer). */
function withDatabase<T>(home: string, use: (db: Database.Database) => T): T {
  const db = openDatabase(join(home, 'wren.db'));
  try {
    return use(db);
  } finally {
    db.close();
  }
}

/** Outbox runs not done and deliveries not sent. */
function unsettled(home: string): { unfinished: number; pending: number } {
  return withDatabase(home, (db) => ({
    unfinished: (db.prepare("SELECT count(*) AS n FROM outbox WHERE state != 'done'").get() as { n: number })
      .n,
    pending: (db.prepare("SELECT count(*) AS n FROM deliveries WHERE state != 'sent'").get() as { n: number })
      .n,
  }));
}

describe('reminders across kill -9', () => {
  it(`neither loses nor doubles a reminder over ${ITERATIONS} kills of the gateway at random points`, async () => {
    console.log(`proactive crash test: seed ${SEED} (replay with WREN_CRASH_SEED=${SEED})`);
    const home = makeHome(`proactive:\n  webhooks:\n    sink: { url: "${sinkUrl}" }\n`);
    const env = cliEnv(home);
    const start = Date.now() + 2_000;
    await withHome(home, (opened) => {
      const reminders = opened.stores().reminders;
      for (let n = 0; n < REMINDERS; n++) {
        const at = start + n * SPACING_MS;
        reminders.create({
          text: `r${n}`,
          mode: 'notify',
          at,
          timezone: 'UTC',
          nextAt: at,
          deliverTo: ['webhook:sink'],
        });
      }
    });
    let wren: RunningWren | undefined;
    for (let iteration = 0; iteration < ITERATIONS; iteration++) {
      wren = await startWren(env);
      await new Promise((resolve) => setTimeout(resolve, between(killRandom, 50, 700)));
      wren.child.kill('SIGKILL');
      await wren.exited;
    }
    // A last run that is allowed to finish: everything left over is run and delivered.
    wren = await startWren(env);
    const expectedKeys = REMINDERS;
    try {
      await waitFor(() => new Set(received.map((entry) => entry.key)).size >= expectedKeys, 60_000);
      // Settled, not merely quiet: every run finished and every delivery marked sent, and the sink answered
      // all it read — so no late repeat can arrive after the counts below.
      await waitFor(() => {
        const { unfinished, pending } = unsettled(home);
        return unfinished === 0 && pending === 0 && answering === 0;
      }, 60_000);
    } finally {
      await wren.stop();
    }
    const byKey = new Map<string, number>();
    for (const { key } of received) byKey.set(key, (byKey.get(key) ?? 0) + 1);
    const reminderIds = [...byKey.keys()]
      .map((key) => key.split(':')[1])
      .sort((a, b) => Number(a) - Number(b));
    // Every reminder arrived; no reminder arrived under two keys (it ran once).
    expect(reminderIds).toEqual(Array.from({ length: REMINDERS }, (_, n) => String(n + 1)));
    expect(mismatched).toBe(0);
    const resent = [...byKey.values()].filter((count) => count > 1).length;
    console.log(
      `proactive crash test (seed ${SEED}): ${ITERATIONS} kills, ${REMINDERS} reminders, ${received.length} deliveries; ${resent} re-sent with the same key after a kill between sending and marking (the sink can drop those)`,
    );
    const counts = {
      ...unsettled(home),
      // The reminders' runs only: the gateway's own housekeeping (the daily retention prune) has runs too.
      runs: withDatabase(
        home,
        (db) =>
          (db.prepare("SELECT count(*) AS n FROM outbox WHERE kind = 'reminder'").get() as { n: number }).n,
      ),
    };
    expect(counts).toEqual({ unfinished: 0, pending: 0, runs: REMINDERS });
  }, 600_000);
});
