import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/open-database.js';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { between, crashSeed, prng } from '../support/crash-seed.js';
import { type Dovecot, startDovecot } from '../support/dovecot.js';
import { cliEnv, makeHome, type RunningWren, startWren, waitFor } from '../support/wren-home.js';
import { accountYaml, cursorOf, deliver, freshUser } from './mail-support.js';

/** Mails appended over the run, in bursts of BURST; one burst per life of the gateway, so KILLS lives. */
const MAILS = 40;
const BURST = 4;
const KILLS = MAILS / BURST;
const ACCOUNT = 'crash';

const SEED = crashSeed();
/** Kill points and bursts draw from one stream (in loop order), the model's delays from another. */
const random = prng(SEED);
const modelRandom = prng(SEED ^ 0x5eed);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Each mail's subject names its number (two digits, so no subject contains another). */
const subjectOf = (n: number) => `crash mail #${String(n).padStart(2, '0')}`;
const numberIn = (text: string) => {
  const match = /crash mail #(\d\d)/.exec(text);
  return match ? Number(match[1]) : undefined;
};

let dovecot: Dovecot;
let llm: FakeLlmServer;
/** The summarising requests the fake model got: which mail, and when the request arrived. */
const summarised: Array<{ mail: number; at: number }> = [];
/** What the webhook sink took: one entry per POST, by idempotency key. */
const received: string[] = [];
let sink: Server;
let sinkUrl = '';

beforeAll(async () => {
  dovecot = await startDovecot();
  llm = await startFakeLlmServer({
    handler: (request) => {
      const mail = request.lastUserText.includes('Summarise it for the')
        ? numberIn(request.lastUserText)
        : undefined;
      if (mail !== undefined) summarised.push({ mail, at: Date.now() });
      // A random wait keeps turns in flight long enough for the kills to land in the middle of them.
      return {
        text: mail !== undefined ? `Summary of mail ${mail}: nothing to answer.` : 'ok',
        delayMs: between(modelRandom, 20, 400),
      };
    },
  });
  sink = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received.push(String(request.headers['idempotency-key'] ?? ''));
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  await llm?.close();
  await new Promise((resolve) => sink?.close(resolve));
  await dovecot?.stop();
});

/** Runs `use` on a connection of its own to the home's wren.db (raw counts the stores do not offer). */
function withDatabase<T>(home: string, use: (db: Database.Database) => T): T {
  const db = openDatabase(join(home, 'wren.db'));
  try {
    return use(db);
  } finally {
    db.close();
  }
}

interface RunRow {
  source_key: string;
  state: string;
  outcome: string | null;
  attempts: number;
  finished_at: number | null;
  payload: string;
}

/** This account's trigger keys and the outbox runs claimed for them. */
function readStore(home: string) {
  return withDatabase(home, (db) => ({
    keys: (
      db
        .prepare('SELECT key FROM triggers WHERE key LIKE ? ORDER BY id')
        .all(`mailwatch:${ACCOUNT}:%`) as Array<{
        key: string;
      }>
    ).map((row) => row.key),
    runs: db
      .prepare(
        "SELECT source_key, state, outcome, attempts, finished_at, payload FROM outbox WHERE kind = 'trigger' AND source_key LIKE ?",
      )
      .all(`mailwatch:${ACCOUNT}:%`) as RunRow[],
    unsent: (
      db
        .prepare(
          "SELECT count(*) AS n FROM deliveries d JOIN outbox o ON o.id = d.outbox_id WHERE o.kind = 'trigger' AND d.state != 'sent'",
        )
        .get() as { n: number }
    ).n,
    feed: (
      db
        .prepare(
          "SELECT count(*) AS n FROM feed f JOIN outbox o ON o.id = f.outbox_id WHERE o.kind = 'trigger' AND o.source_key LIKE ?",
        )
        .get(`mailwatch:${ACCOUNT}:%`) as { n: number }
    ).n,
  }));
}

/**
 * Issue 21: "a restart mid-fetch neither loses nor repeats one". The real `wren start` watches a real Dovecot
 * folder while mail arrives in bursts and the gateway is SIGKILLed at random points (mid-fetch, mid-turn,
 * mid-delivery, or while down). What must be exactly once is what is stored: one trigger per mail, one
 * finished outbox run per trigger, one feed entry and one sent delivery per run. The model call is not: a
 * run killed mid-turn is started again. The seed fixes the kill points, bursts and model delays, not the
 * processes' own timing, so a replay retraces the run only roughly.
 */
describe('mail_watch across kill -9', () => {
  it(`neither loses nor repeats a mail over ${KILLS} kills of the gateway while ${MAILS} mails arrive`, async () => {
    console.log(`mail crash test: seed ${SEED} (replay with WREN_CRASH_SEED=${SEED})`);
    const began = Date.now();
    const user = freshUser('crash');
    const home = makeHome(
      [
        'models:',
        '  - name: main',
        '    protocol: openai',
        '    base_url: ${FAKE_BASE}',
        '    api_key: fake-key',
        '    model: fake-model',
        'proactive:',
        `  deliver_to: ["webhook:sink"]`,
        '  webhooks:',
        `    sink: { url: "${sinkUrl}" }`,
        'mail_watch:',
        accountYaml(dovecot, { name: ACCOUNT, user, rules: ['{ name: all }'] }),
        '',
      ].join('\n'),
    );
    const env = cliEnv(home, { FAKE_BASE: llm.baseUrls.openai, MAIL_PASSWORD: dovecot.password });

    // The first look at the folder sets the cursor at the newest mail: only mail after it is new.
    let wren: RunningWren = await startWren(env);
    await waitFor(() => cursorOf(home, ACCOUNT) !== undefined, 15_000);

    // Bursts go in one after another, each at a random point of a life of the gateway (or while it is down).
    let mailing: Promise<unknown> = Promise.resolve();
    let next = 1;
    for (let life = 0; life < KILLS; life++) {
      if (life > 0) wren = await startWren(env);
      const lifeMs = between(random, 150, 2_500);
      const burstAt = between(random, 0, lifeMs + 400);
      const burst = Array.from({ length: BURST }, (_, index) => ({
        from: `sender${next + index}@example.com`,
        subject: subjectOf(next + index),
        body: `Body of mail ${next + index}.`,
      }));
      next += BURST;
      mailing = mailing.then(() => sleep(burstAt)).then(() => deliver(dovecot, user, burst));
      await sleep(lifeMs);
      wren.child.kill('SIGKILL');
      await wren.exited;
    }
    await mailing;
    const killed = Date.now();

    // A last life that is allowed to finish: every mail is taken in, run and delivered.
    wren = await startWren(env);
    let drainMs = 0;
    try {
      await waitFor(() => {
        const store = readStore(home);
        return (
          store.keys.length >= MAILS &&
          store.runs.length >= MAILS &&
          store.runs.every((run) => run.state === 'done') &&
          store.unsent === 0
        );
      }, 40_000);
      drainMs = Date.now() - killed;
      // Time for anything that would come twice to show.
      await sleep(1_500);
    } finally {
      await wren.stop();
    }

    const { keys, runs, unsent, feed } = readStore(home);
    // Nothing lost, nothing doubled: the keys are UIDs 1..MAILS of the folder, each stored once.
    const uids = keys.map((key) => Number(key.split(':').at(-1))).sort((a, b) => a - b);
    expect(uids).toEqual(Array.from({ length: MAILS }, (_, n) => n + 1));
    expect(new Set(keys).size).toBe(MAILS);
    // Exactly one finished run per key, each for its own mail, with one feed entry and a sent delivery.
    expect(runs.map((run) => run.source_key).sort()).toEqual([...keys].sort());
    expect(runs.filter((run) => run.state !== 'done' || run.outcome !== 'delivered')).toEqual([]);
    const mailOfRun = new Map(
      runs.map((run) => [run.source_key, numberIn(JSON.parse(run.payload).title as string)]),
    );
    expect([...new Set(mailOfRun.values())].sort((a, b) => a! - b!)).toEqual(
      Array.from({ length: MAILS }, (_, n) => n + 1),
    );
    expect(feed).toBe(MAILS);
    expect(unsent).toBe(0);
    // The sink got every run; a POST repeats only under the same key (a kill between sending and marking sent).
    expect([...new Set(received)].sort()).toEqual([...keys].sort());

    // The model call is not what is exactly once: a run killed mid-turn is run again (one more attempt, so
    // one more call at most). Every mail was summarised; never more often than its run was started; and
    // never after its run was stored as done.
    const repeated: string[] = [];
    for (const run of runs) {
      const mail = mailOfRun.get(run.source_key)!;
      const calls = summarised.filter((call) => call.mail === mail);
      expect(calls.length, `mail ${mail}`).toBeGreaterThanOrEqual(1);
      expect(calls.length, `mail ${mail} (${run.attempts} attempts)`).toBeLessThanOrEqual(run.attempts);
      expect(
        calls.filter((call) => call.at > run.finished_at!),
        `mail ${mail}`,
      ).toEqual([]);
      if (calls.length > 1) repeated.push(`#${mail}×${calls.length}`);
    }
    const rerun = runs.filter((run) => run.attempts > 1).length;
    console.log(
      `mail crash test (seed ${SEED}): ${KILLS} kills, ${MAILS} mails, ${runs.length} runs (${rerun} run again after a kill mid-run), ` +
        `${summarised.length} summarising model calls (repeated: ${repeated.join(' ') || 'none'}), ` +
        `${received.length} webhook POSTs for ${new Set(received).size} keys; kills over ${Math.round((killed - began) / 1000)} s, ` +
        `the rest done ${Math.round(drainMs / 1000)} s after the last kill, ${Math.round((Date.now() - began) / 1000)} s in all`,
    );
  }, 120_000);
});
