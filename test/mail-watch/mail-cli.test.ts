import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMailList, runMailTest } from '../../src/cli/commands/mail.js';
import { capturedIo } from '../support/captured-io.js';
import { type Dovecot, startDovecot } from '../support/dovecot.js';
import { makeHome } from '../support/wren-home.js';
import { deliver, freshUser } from './mail-support.js';

let dovecot: Dovecot;
beforeAll(async () => {
  dovecot = await startDovecot();
});
afterAll(async () => {
  await dovecot?.stop();
});

function home(user: string, password: string) {
  return makeHome(
    [
      'mail_watch:',
      '  - name: main',
      `    host: ${dovecot.host}`,
      `    port: ${dovecot.port}`,
      '    secure: false',
      `    user: ${user}`,
      `    password: "${password}"`,
      '    rules:',
      '      - { name: bank, from: "*@bank.example", digest_minutes: 30 }',
    ].join('\n'),
  );
}

describe('wren mail list | test', () => {
  it('test logs in, lists the folders and the newest three subjects', async () => {
    const user = freshUser('cli');
    await deliver(
      dovecot,
      user,
      [1, 2, 3, 4].map((n) => ({ from: `s${n}@example.com`, subject: `subject ${n}`, body: 'x' })),
    );
    const { out, io } = capturedIo();
    expect(await runMailTest({ home: home(user, dovecot.password), name: 'main' }, io)).toBe(0);
    expect(out.stdout).toContain(`Logged in to ${dovecot.host}:${dovecot.port} as ${user}`);
    expect(out.stdout).toContain('Folders: INBOX');
    expect(out.stdout).toMatch(/subject 4[\s\S]*subject 3[\s\S]*subject 2/);
    expect(out.stdout).not.toContain('subject 1');
    expect(out.stdout + out.stderr).not.toContain(dovecot.password);
  });

  it('test with a wrong password fails clearly with exit code 1 and never prints the password', async () => {
    const { out, io } = capturedIo();
    const wrong = 'not-the-password-123';
    expect(await runMailTest({ home: home(freshUser('cli'), wrong), name: 'main' }, io)).toBe(1);
    expect(out.stderr).toMatch(/refused the login of .*: check user and password/);
    expect(out.stdout + out.stderr).not.toContain(wrong);
  });

  it('test of an unknown account names the configured ones', async () => {
    const { out, io } = capturedIo();
    expect(await runMailTest({ home: home(freshUser('cli'), 'x'), name: 'nope' }, io)).toBe(1);
    expect(out.stderr).toContain('no mail_watch account named "nope" (configured: main)');
  });

  it('list shows accounts, folders with their cursor, and rules, without the password', async () => {
    const { out, io } = capturedIo();
    const secret = 'list-secret-pw';
    expect(await runMailList({ home: home(freshUser('cli'), secret) }, io)).toBe(0);
    expect(out.stdout).toContain('main  cli');
    expect(out.stdout).toContain('folder INBOX: not read yet');
    expect(out.stdout).toContain('rule bank: from *@bank.example, digest every 30 min');
    expect(out.stdout).not.toContain(secret);
  });
});
