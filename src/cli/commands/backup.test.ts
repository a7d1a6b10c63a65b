import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCommands } from '../../../test/support/run-commands.js';
import { countsText, registerBackupCommands, sizeText } from './backup.js';

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Runs `wren  ARGS` in this process and returns what it printed. */
const wren = (home: string, args: string[]) => runCommands(registerBackupCommands, home, [...args]);

describe('wren backup and wren restore', () => {
  it('registers backup and restore', () => {
    const program = new Command();
    registerBackupCommands(program, () => '/nowhere');
    expect(program.commands.map((command) => command.name())).toEqual(['backup', 'restore']);
  });

  it('backs up, says what it holds and what it left out, and restores it', async () => {
    const root = mkdtempSync(join(tmpdir(), 'wren-cli-backup-'));
    dirs.push(root);
    const home = join(root, 'home');
    mkdirSync(join(home, 'workspace'), { recursive: true });
    writeFileSync(join(home, 'config.yaml'), 'agent:\n  timezone: UTC\n');
    writeFileSync(join(home, '.env'), 'SOME_API_KEY=sk-cli-secret-123456\n');
    writeFileSync(join(home, 'workspace', 'MEMORY.md'), 'tea\n');
    const file = join(root, 'out.tar.gz');
    const made = await wren(home, ['backup', '--to', file]);
    expect(made.code).toBe(0);
    expect(made.stdout).toContain(`Backup written: ${file}`);
    expect(made.stdout).toMatch(/database: schema v\d+/);
    expect(made.stdout).toContain('left out: .env: holds secrets');
    expect(made.stdout).not.toContain('CONTAINS SECRETS');
    const secret = await wren(home, ['backup', '--to', join(root, 'secret.tar.gz'), '--with-secrets']);
    expect(secret.stdout).toContain('CONTAINS SECRETS');
    expect(statSync(join(root, 'secret.tar.gz')).mode & 0o777).toBe(0o600);
    const again = await wren(home, ['backup', '--to', file]);
    expect(again).toMatchObject({ code: 2 });
    expect(again.stderr).toContain('exists');
    const restored = await wren(home, ['restore', file]);
    expect(restored.code).toBe(0);
    expect(restored.stdout).toContain(`Restored ${home} from ${file}`);
    expect(restored.stdout).toContain('kept from the previous home (not in the archive): .env');
    expect(restored.stdout).toMatch(/previous home is at .*home\.before-restore-/);
    writeFileSync(join(root, 'bad.tar.gz'), 'not an archive');
    const bad = await wren(home, ['restore', join(root, 'bad.tar.gz')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/Refused: .*Nothing was changed/);
  });

  it('formats sizes and counts', () => {
    expect([sizeText(12), sizeText(34_000), sizeText(1_250_000)]).toEqual(['12 B', '34 kB', '1.3 MB']);
    expect(countsText({ sessions: 2, messages: 10, other: 1 })).toBe(
      '2 sessions, 10 messages (13 rows in 3 tables)',
    );
  });
});
