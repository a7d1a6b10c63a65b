/**
 * Mail watch benchmark: a real Dovecot (as the mail tests use) holding a 50,000-message INBOX.
 *   npx tsx bench/mail-watch-bench.ts
 * Figures: the watcher's first look at the full folder (it records the cursor, reads no old mail), then a
 * restart after 1,000 mails arrived while Wren was off (each one fetched, read and recorded as one trigger,
 * the cursor moved mail by mail) — wall time, this process's CPU, peak RSS growth and the heap kept. Dovecot's
 * own first indexing of the folder is timed apart, since a real mailbox is indexed long before Wren looks.
 * Measures, never asserts.
 */
import { chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { toMailWatchConfig } from '../src/config/mail-watch-config.js';
import { AccountWatcher } from '../src/mail-watch/account-watcher.js';
import { MailWatchState } from '../src/mail-watch/mail-watch-state.js';
import { openStoresAt } from '../src/store/open-stores.js';
import { silentLogger } from '../src/util/logger.js';
import { asUser } from '../test/mail-watch/mail-support.js';
import { startDovecot } from '../test/support/dovecot.js';
import { ScriptedModel } from '../test/support/scripted-model.js';

export interface WatchFigures {
  ms: number;
  cpuMs: number;
  peakRssMb: number;
  heapKeptMb: number;
}

export interface MailWatchBenchResult {
  messages: number;
  /** Dovecot indexing the Maildir the first time (the server's cost, not Wren's). */
  serverIndexMs: number;
  firstLook: WatchFigures;
  catchUp: WatchFigures & { mails: number; triggers: number };
}

const MESSAGES = 50_000;
const ARRIVED = 1_000;
const MB = 1024 * 1024;
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function message(user: string, i: number): string {
  return [
    `From: Sender ${i % 300} <sender${i % 300}@example.com>`,
    `To: ${user}`,
    `Subject: Message ${i} about order ${i * 7}`,
    `Message-ID: <bench-${i}@example.com>`,
    'Date: Tue, 01 Dec 2026 10:00:00 +0000',
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    `Hello, this is message ${i}. `.repeat(12),
    '',
  ].join('\r\n');
}

/** Writes mail straight into the Maildir, as a delivery agent does (`new/` for mail not yet seen). */
function fill(
  maildir: string,
  user: string,
  from: number,
  count: number,
  owner: [number, number] | undefined,
) {
  for (const sub of ['cur', 'new', 'tmp']) {
    mkdirSync(join(maildir, sub), { recursive: true });
    if (owner) chownSync(join(maildir, sub), ...owner);
  }
  if (owner) chownSync(maildir, ...owner);
  for (let i = from; i < from + count; i++) {
    const file = join(maildir, 'new', `${1_780_000_000 + i}.M${i}P1.bench`);
    writeFileSync(file, message(user, i));
    if (owner) chownSync(file, ...owner);
  }
}

async function measure(run: () => Promise<void>): Promise<WatchFigures> {
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  const cpu = process.cpuUsage();
  const started = performance.now();
  await run();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  clearInterval(sampler);
  gc();
  return {
    ms,
    cpuMs: (used.user + used.system) / 1000,
    peakRssMb: (Math.max(peak, process.memoryUsage().rss) - rssBefore) / MB,
    heapKeptMb: (process.memoryUsage().heapUsed - heapBefore) / MB,
  };
}

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`mail watch bench: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export async function runMailWatchBench(): Promise<MailWatchBenchResult | { skipped: string }> {
  if (!existsSync('/usr/sbin/dovecot'))
    return { skipped: 'dovecot is not installed (apt-get install dovecot-imapd)' };
  const dovecot = await startDovecot();
  const dir = mkdtempSync(join(tmpdir(), 'wren-mail-bench-'));
  const user = `bench-${process.pid}@example.org`;
  const owner: [number, number] | undefined = process.getuid?.() === 0 ? [65534, 65534] : undefined;
  const maildir = join(dovecot.dir, 'mail', user);
  const stores = openStoresAt(join(dir, 'wren.db'));
  try {
    fill(maildir, user, 0, MESSAGES, owner);
    const indexStarted = performance.now();
    const total = await asUser(dovecot, user, async (client) => (await client.mailboxOpen('INBOX')).exists);
    const serverIndexMs = performance.now() - indexStarted;
    if (total !== MESSAGES) throw new Error(`dovecot sees ${total} of ${MESSAGES} messages`);
    const [account] = toMailWatchConfig([
      {
        name: 'bench',
        enabled: true,
        host: dovecot.host,
        port: dovecot.port,
        secure: false,
        user,
        password: dovecot.password,
        folders: ['INBOX'],
        poll_seconds: 60,
        rules: [{ name: 'all', important_only: false }],
      },
    ]);
    let triggers = 0;
    const deps = {
      ledger: stores.channels,
      recordTrigger: (event: Parameters<typeof stores.triggers.record>[0]) => {
        const fresh = stores.triggers.record(event);
        if (fresh) triggers++;
        return fresh;
      },
      model: new ScriptedModel(),
      logger: silentLogger(),
      deliverTo: () => ['bench:owner'],
    };
    const state = new MailWatchState(stores.channels, 'bench');
    const first = new AccountWatcher(account!, deps);
    const firstLook = await measure(async () => {
      first.start();
      await until(() => state.cursor('INBOX') !== undefined, 120_000, 'the first look');
    });
    await first.stop();
    fill(maildir, user, MESSAGES, ARRIVED, owner);
    const second = new AccountWatcher(account!, deps);
    const catchUp = await measure(async () => {
      second.start();
      await until(() => state.cursor('INBOX')?.last === MESSAGES + ARRIVED, 300_000, 'the catch-up');
    });
    await second.stop();
    return {
      messages: MESSAGES,
      serverIndexMs,
      firstLook,
      catchUp: { ...catchUp, mails: ARRIVED, triggers },
    };
  } finally {
    stores.close();
    await dovecot.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(dovecot.dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await runMailWatchBench(), null, 2));
}
