import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBackupService } from '../services/backup-service.js';
import { openStoresAt } from '../store/open-stores.js';
import { BACKUP_KIND, backupKey, backupSource, backupTask } from './backup-source.js';
import { createRunExecutor } from './run-executor.js';

const HOUR = 60 * 60_000;
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function setup(keep = 2) {
  const home = mkdtempSync(join(tmpdir(), 'wren-backup-source-'));
  mkdirSync(join(home, 'workspace'));
  writeFileSync(join(home, 'config.yaml'), 'backup:\n  every: 1h\n');
  writeFileSync(join(home, '.env'), 'X_TOKEN=never-in-a-scheduled-backup\n');
  const stores = openStoresAt(join(home, 'wren.db'));
  const other = openStoresAt(join(home, 'wren.db'));
  cleanups.push(() => {
    stores.close();
    other.close();
    rmSync(home, { recursive: true, force: true });
  });
  let now = Date.parse('2026-05-01T10:15:00Z');
  const dir = join(home, 'backups');
  const service = createBackupService({
    home,
    stores,
    config: () => ({ workspace: join(home, 'workspace'), backup: { everyMs: HOUR, keep, dir } }),
    secrets: () => ['never-in-a-scheduled-backup'],
    wrenVersion: 'test',
    now: () => now,
  });
  const executor = createRunExecutor({
    outbox: stores.outbox,
    runAgent: async () => ({ text: 'unused', failed: true }),
    deliverers: { channel: async () => {} },
    tasks: { [BACKUP_KIND]: backupTask(service) },
  });
  return {
    home,
    dir,
    stores,
    other,
    executor,
    clock: { now: () => now, advance: (ms: number) => (now += ms) },
  };
}

describe('backupSource', () => {
  it('claims each slot once across processes, and nothing while off', () => {
    const { stores, other, clock } = setup();
    let every: number | undefined;
    const mine = backupSource({ everyMs: () => every, outbox: stores.outbox });
    const theirs = backupSource({ everyMs: () => every, outbox: other.outbox });
    expect(mine.claimDue(clock.now())).toEqual([]);
    expect(mine.nextDue(clock.now())).toBeUndefined();
    every = HOUR;
    const slot = Date.parse('2026-05-01T10:00:00Z');
    const claimed = mine.claimDue(clock.now());
    expect(claimed).toHaveLength(1);
    expect(claimed[0]).toMatchObject({
      sourceKey: backupKey(slot),
      kind: 'backup',
      payload: { mode: 'task' },
    });
    expect(theirs.claimDue(clock.now())).toEqual([]);
    expect(mine.claimDue(clock.now())).toEqual([]);
    expect(mine.nextDue(clock.now())).toBe(slot + HOUR);
    clock.advance(HOUR);
    expect(theirs.claimDue(clock.now())).toHaveLength(1);
    expect(mine.claimDue(clock.now())).toEqual([]);
  });

  it('runs a backup without secrets into the feed and prunes scheduled archives to keep', async () => {
    const { stores, dir, executor, clock } = setup(2);
    const source = backupSource({ everyMs: () => HOUR, outbox: stores.outbox });
    mkdirSync(dir);
    writeFileSync(join(dir, 'wren-20200101-000000.tar.gz'), 'a manual one, never pruned');
    for (let n = 0; n < 3; n++) {
      for (const run of source.claimDue(clock.now())) await executor.run(run);
      clock.advance(HOUR);
    }
    const files = readdirSync(dir).sort();
    expect(files).toEqual([
      'wren-20200101-000000.tar.gz',
      'wren-scheduled-20260501-111500.tar.gz',
      'wren-scheduled-20260501-121500.tar.gz',
    ]);
    const feed = stores.outbox.feed(5);
    expect(feed[0]?.text).toMatch(
      /^Backup written: .*wren-scheduled-20260501-121500\.tar\.gz \(\d+ kB\); removed 1 older\.$/,
    );
    expect(stores.outbox.deliveriesOf(feed[0]?.outboxId ?? -1)).toEqual([]);
  });
});
