import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { safeFileName, saveInboxFile } from './inbox-file.js';

describe('saveInboxFile', () => {
  it('makes hostile names harmless', () => {
    expect(safeFileName('../../etc/passwd')).toBe('passwd');
    expect(safeFileName('..\\..\\boot.ini')).toBe('boot.ini');
    expect(safeFileName('.bashrc')).toBe('bashrc');
    expect(safeFileName('$(rm -rf ~);x.sh')).toBe('(rm_-rf_)x.sh');
    expect(safeFileName('a\u0000b\nc.txt')).toBe('abc.txt');
    expect(safeFileName('')).toBe('file');
    expect(safeFileName(`${'x'.repeat(300)}.pdf`)).toHaveLength(100);
  });

  it('never overwrites: the same name twice gets a number', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'wren-inbox-'));
    const day = new Date('2026-12-01T10:00:00Z');
    const first = await saveInboxFile(workspace, 'report.pdf', Buffer.from('one'), day);
    const second = await saveInboxFile(workspace, 'report.pdf', Buffer.from('two'), day);
    expect([first, second]).toEqual(['inbox/2026-12-01-report.pdf', 'inbox/2026-12-01-report-1.pdf']);
    expect(readFileSync(join(workspace, first), 'utf8')).toBe('one');
  });

  it('refuses to write through a symlinked inbox or a planted symlink', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'wren-inbox-'));
    const outside = mkdtempSync(join(tmpdir(), 'wren-outside-'));
    symlinkSync(outside, join(workspace, 'inbox'));
    await expect(saveInboxFile(workspace, 'a.txt', Buffer.from('x'))).rejects.toThrow(/symlink/);
    const other = mkdtempSync(join(tmpdir(), 'wren-inbox-'));
    mkdirSync(join(other, 'inbox'));
    const target = join(outside, 'victim.txt');
    writeFileSync(target, 'safe');
    const day = new Date('2026-12-01T10:00:00Z');
    symlinkSync(target, join(other, 'inbox', '2026-12-01-a.txt'));
    const saved = await saveInboxFile(other, 'a.txt', Buffer.from('evil'), day);
    expect(saved).toBe('inbox/2026-12-01-a-1.txt');
    expect(readFileSync(target, 'utf8')).toBe('safe');
  });
});
