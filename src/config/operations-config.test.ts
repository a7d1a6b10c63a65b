import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../util/config-error.js';
import { loadConfig } from './load-config.js';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'wren-ops-config-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const write = (text: string) => writeFileSync(join(home, 'config.yaml'), text);
const DAY = 86_400_000;

describe('log, backup and retention settings', () => {
  it('defaults: a 10 MB log kept 5 deep, no scheduled backups, a year of chat and 90 days of the rest', () => {
    const config = loadConfig(home, {});
    expect(config.log).toEqual({ level: 'info', maxBytes: 10 * 1024 * 1024, keep: 5 });
    expect(config.backup).toEqual({ keep: 7, dir: join(home, 'backups') });
    expect(config.retention).toEqual({
      messagesMs: 365 * DAY,
      outboxMs: 90 * DAY,
      auditMs: 90 * DAY,
      feedMs: 90 * DAY,
      execLogMs: 30 * DAY,
    });
  });

  it('reads what the owner sets, with 0 meaning keep forever', () => {
    write(
      'log: { level: debug, max_size_mb: 2, keep: 3 }\n' +
        'backup: { every: 12h, keep: 3, to: /var/backups/wren }\n' +
        'retention: { messages_days: 0, outbox_days: 7 }\n',
    );
    const config = loadConfig(home, {});
    expect(config.log).toEqual({ level: 'debug', maxBytes: 2 * 1024 * 1024, keep: 3 });
    expect(config.backup).toEqual({ everyMs: 12 * 3_600_000, keep: 3, dir: '/var/backups/wren' });
    expect(config.retention.messagesMs).toBe(0);
    expect(config.retention.outboxMs).toBe(7 * DAY);
  });

  it.each([
    ['backup: { every: 5m }', 'backup.every'],
    ['backup: { every: soon }', 'backup.every'],
    ['backup: { keep: 0 }', 'backup.keep'],
    ['log: { max_size_mb: 0 }', 'log.max_size_mb'],
    ['retention: { audit_days: -1 }', 'retention.audit_days'],
    ['retention: { forever: true }', 'retention'],
  ])('refuses %s, naming %s', (yaml, path) => {
    write(`${yaml}\n`);
    let error: unknown;
    try {
      loadConfig(home, {});
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(path);
  });
});
