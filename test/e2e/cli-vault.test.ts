import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { cliEnv, makeHome, runCli } from '../support/wren-home.js';

const VALUE = 'pa55-w0rd-from-stdin-77';

/** Every table of wren.db as text (every column of every row). */
function databaseText(home: string): string {
  const db = new Database(join(home, 'wren.db'), { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{
      name: string;
    }>;
    return tables.map(({ name }) => JSON.stringify(db.prepare(`SELECT * FROM "${name}"`).all())).join('\n');
  } finally {
    db.close();
  }
}

describe('wren vault (the real CLI)', () => {
  it('set reads the value from stdin, seals it, list shows names and bindings only, rm removes it', async () => {
    const home = makeHome('');
    const env = cliEnv(home);
    const set = await runCli(
      [
        'vault',
        'set',
        'API_TOKEN',
        '--host',
        'api.example.com',
        '--host',
        '*.example.org',
        '--program',
        'curl',
      ],
      env,
      `${VALUE}\n`,
    );
    expect(set.stderr).toBe('');
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(
      /Stored API_TOKEN, bound to hosts api\.example\.com, \*\.example\.org; programs curl/,
    );
    expect(set.stdout).toContain('{{vault:API_TOKEN}}');
    // The key was made in .env (0600); the database holds the value only sealed.
    expect(readFileSync(join(home, '.env'), 'utf8')).toMatch(/^WREN_SECRET_KEY=/m);
    expect(statSync(join(home, '.env')).mode & 0o777).toBe(0o600);
    const stored = databaseText(home);
    expect(stored).toContain('API_TOKEN');
    expect(stored).not.toContain(VALUE);
    expect(stored).not.toContain(Buffer.from(VALUE).toString('base64'));

    const list = await runCli(['vault', 'list'], env);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      /API_TOKEN {2}bound to hosts api\.example\.com, \*\.example\.org; programs curl/,
    );
    expect(list.stdout).not.toContain(VALUE);
    const json = JSON.parse((await runCli(['vault', 'list', '--json'], env)).stdout) as {
      secrets: Array<{ name: string; bindings: unknown }>;
    };
    expect(json.secrets).toEqual([
      expect.objectContaining({
        name: 'API_TOKEN',
        bindings: { hosts: ['api.example.com', '*.example.org'], programs: ['curl'] },
      }),
    ]);
    expect(JSON.stringify(json)).not.toContain('sealed');

    expect((await runCli(['vault', 'rm', 'API_TOKEN'], env)).code).toBe(0);
    const again = await runCli(['vault', 'rm', 'API_TOKEN'], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/no vault secret named API_TOKEN/);
    expect((await runCli(['vault', 'list'], env)).stdout).toMatch(/The vault is empty/);
  });

  it('refuses a value on the command line, a bad name, an empty or multi-line value, never echoing it', async () => {
    const home = makeHome('');
    const env = cliEnv(home);
    const argv = await runCli(['vault', 'set', 'API_TOKEN', VALUE], env, 'ignored\n');
    expect(argv.code).toBe(2);
    expect(argv.stderr).toMatch(/never taken from the command line/);
    expect(argv.stderr).not.toContain(VALUE);
    const bad = await runCli(['vault', 'set', 'api-token'], env, `${VALUE}\n`);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/not a vault name/);
    expect((await runCli(['vault', 'set', 'EMPTY'], env, '')).stderr).toMatch(/no value given/);
    const lines = await runCli(['vault', 'set', 'LINES'], env, `${VALUE}\nsecond-line\n`);
    expect(lines.code).toBe(2);
    expect(lines.stderr + lines.stdout).not.toContain(VALUE);
    expect((await runCli(['vault', 'list', '--json'], env)).stdout).toContain('"secrets": []');
  });

  it('--help describes set, list and rm', async () => {
    const home = makeHome('');
    const help = await runCli(['vault', '--help'], cliEnv(home));
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/set \[options\] <name>/);
    expect(help.stdout).toMatch(/list/);
    expect(help.stdout).toMatch(/rm <name>/);
    const setHelp = await runCli(['vault', 'set', '--help'], cliEnv(home));
    expect(setHelp.stdout).toMatch(/--host <host>/);
    expect(setHelp.stdout).toMatch(/never from\s+the command line/);
  });
});
