import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { toMailWatchConfig } from '../../src/config/mail-watch-config.js';
import { AccountWatcher, type MailWatchDeps } from '../../src/mail-watch/account-watcher.js';
import { MailWatchState } from '../../src/mail-watch/mail-watch-state.js';
import { openStoresAt, type Stores } from '../../src/store/open-stores.js';
import { silentLogger } from '../../src/util/logger.js';
import { type Dovecot, startDovecot } from '../support/dovecot.js';
import { ScriptedModel } from '../support/scripted-model.js';
import { waitFor } from '../support/wren-home.js';
import { deliver, freshUser } from './mail-support.js';

let dovecot: Dovecot;
beforeAll(async () => {
  dovecot = await startDovecot();
});
afterAll(async () => {
  await dovecot?.stop();
});

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function storesInTemp(): Stores {
  const dir = mkdtempSync(join(tmpdir(), 'wren-mail-digest-'));
  const stores = openStoresAt(join(dir, 'wren.db'));
  cleanups.push(() => {
    stores.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return stores;
}

describe('digest mode (real Dovecot, the watcher over real SQLite stores, a fake clock)', () => {
  it('collects several mails, keeps them across a restart, and records one trigger for the window', async () => {
    const user = freshUser('digest');
    const [account] = toMailWatchConfig([
      {
        name: 'main',
        enabled: true,
        host: dovecot.host,
        port: dovecot.port,
        secure: false,
        user,
        password: dovecot.password,
        folders: ['INBOX'],
        poll_seconds: 10,
        rules: [{ name: 'daily', important_only: false, digest_minutes: 60 }],
      },
    ]);
    const stores = storesInTemp();
    let now = Date.parse('2026-12-01T08:00:00Z');
    const deps: MailWatchDeps = {
      ledger: stores.channels,
      recordTrigger: (event) => stores.triggers.record(event),
      model: new ScriptedModel(),
      logger: silentLogger(),
      deliverTo: () => [],
      now: () => now,
      digestCheckMs: 50,
      backoff: { minMs: 100, maxMs: 1000 },
    };
    const state = new MailWatchState(stores.channels, 'main');
    const first = new AccountWatcher(account!, deps);
    first.start();
    cleanups.push(() => first.stop());
    await waitFor(() => state.cursor('INBOX') !== undefined, 10_000);
    await deliver(dovecot, user, [
      { from: 'a@example.com', subject: 'one', body: 'first' },
      {
        from: 'b@example.com',
        subject: 'two',
        body: 'second',
        attachment: { name: 'x.zip', content: 'zip' },
      },
    ]);
    await waitFor(() => state.digest('daily')?.mails.length === 2, 10_000);
    await first.stop();
    // Restarted: the open window is still there, and more mail joins it.
    const second = new AccountWatcher(account!, deps);
    second.start();
    cleanups.push(() => second.stop());
    now += 10 * 60_000;
    await deliver(dovecot, user, { from: 'c@example.com', subject: 'three', body: 'third' });
    await waitFor(() => state.digest('daily')?.mails.length === 3, 10_000);
    expect(stores.triggers.unclaimed(0, 10)).toEqual([]);
    now += 51 * 60_000;
    await waitFor(() => stores.triggers.unclaimed(0, 10).length === 1, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const events = stores.triggers.unclaimed(0, 10);
    expect(events).toHaveLength(1);
    const event = events[0]!;
    expect(event.key).toBe(`mailwatch-digest:main:daily:${Date.parse('2026-12-01T08:00:00Z')}`);
    expect(event.payload.untrusted).toBe(true);
    expect(event.payload.title).toBe('Mail digest (main, daily): 3 mails');
    for (const subject of [
      'Subject: one',
      'Subject: two',
      'Subject: three',
      'Attachments (not opened): x.zip',
    ])
      expect(event.payload.text).toContain(subject);
    expect(state.digest('daily')).toBeUndefined();
  }, 40_000);
});
