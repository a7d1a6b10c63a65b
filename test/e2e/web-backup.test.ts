import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { list } from 'tar';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startWebGateway, type WebGateway } from '../support/web-gateway.js';

const TOKEN = 'web-backup-token-0123456789abcdef';
const SECRET = 'sk-live-web-backup-secret-42';
let gateway: WebGateway;
let page: Page;

beforeAll(async () => {
  gateway = await startWebGateway({
    answer: () => ({ text: 'ok' }),
    token: TOKEN,
    config: ['backup: { every: 1d, keep: 3 }', 'retention: { feed_days: 14 }'],
  });
  writeFileSync(join(gateway.home, '.env'), `SOME_API_KEY=${SECRET}\n`, { mode: 0o600 });
  page = await (await gateway.browser.newContext({ acceptDownloads: true })).newPage();
  // Signs in once, through the one-time link `wren start` printed.
  const link = /web app: (http:\/\/\S+)/.exec(gateway.wren.stdout())?.[1];
  expect(link).toBeDefined();
  await page.goto(link!);
  await page.getByLabel('Message', { exact: true }).waitFor();
}, 60_000);

afterAll(async () => {
  await gateway?.browser.close();
  await gateway?.wren.stop();
  await gateway?.llm.close();
});

const openSettings = () =>
  page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();

it('Settings shows the scheduled backups and retention ages of config.yaml, read-only', {
  timeout: 60_000,
}, async () => {
  await openSettings();
  const section = page.getByRole('region', { name: 'Backup' });
  await section
    .getByText(`Scheduled backups: every 1 day, keeping 3, in ${join(gateway.home, 'backups')}.`)
    .waitFor();
  const kept = section.getByRole('definition');
  expect(await kept.allTextContents()).toEqual(['365 days', '90 days', '90 days', '14 days', '30 days']);
  expect(await section.getByText('Both are edited in config.yaml').count()).toBe(1);
  expect(await section.getByRole('textbox').count()).toBe(0);
});

it('Settings downloads a backup of the home: the manifest and the database, no secret', {
  timeout: 60_000,
}, async () => {
  await openSettings();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download a backup' }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^wren-\d{8}-\d{6}\.tar\.gz$/);
  const file = join(mkdtempSync(join(tmpdir(), 'wren-web-backup-')), download.suggestedFilename());
  await download.saveAs(file);
  const entries: string[] = [];
  await list({ file, onReadEntry: (entry) => entries.push(entry.path) });
  expect(entries).toEqual(expect.arrayContaining(['wren-backup.json', 'wren.db', 'config.yaml']));
  expect(entries).not.toContain('.env');
  const bytes = readFileSync(file);
  const { gunzipSync } = await import('node:zlib');
  const unpacked = gunzipSync(bytes).toString('latin1');
  expect(unpacked).not.toContain(SECRET);
  expect(unpacked).not.toContain(TOKEN);
});
