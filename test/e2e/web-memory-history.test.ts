import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { writeInstructionFile } from '../../src/memory/file-history.js';
import { normalizeFact } from '../../src/memory/memory-file.js';
import { FileVersionRepository } from '../../src/store/file-version-repository.js';
import { MemoryProposalRepository } from '../../src/store/memory-proposal-repository.js';
import { openDatabase } from '../../src/store/open-database.js';
import { startWebGateway, type WebGateway } from '../support/web-gateway.js';

const TOKEN = 'web-memory-history-token-0123456789';
let gateway: WebGateway;
let page: Page;
let db: ReturnType<typeof openDatabase>;

beforeAll(async () => {
  gateway = await startWebGateway({ answer: () => ({ text: 'ok' }), token: TOKEN });
  // The running gateway's own database: another writer (a consolidation) records versions in it too.
  db = openDatabase(join(gateway.home, 'wren.db'), { migrate: false });
  page = await (await gateway.browser.newContext()).newPage();
  const link = /web app: (http:\/\/\S+)/.exec(gateway.wren.stdout())?.[1];
  expect(link).toBeDefined();
  await page.goto(link!);
  await page.getByLabel('Message', { exact: true }).waitFor();
}, 60_000);

afterAll(async () => {
  db?.close();
  await gateway?.browser.close();
  await gateway?.wren.stop();
  await gateway?.llm.close();
});

const memoryFile = () => join(gateway.home, 'workspace', 'MEMORY.md');
const onDisk = () => readFileSync(memoryFile(), 'utf8');

/** What a consolidation does to MEMORY.md: the file replaced, then a version by `consolidation`. */
const consolidate = (content: string) =>
  writeInstructionFile({
    workspace: join(gateway.home, 'workspace'),
    path: 'MEMORY.md',
    content,
    author: 'consolidation',
    note: 'session e2e',
    versions: new FileVersionRepository(db),
  });

/** Opens MEMORY.md in the editor (fresh from the server) once it holds `text`. */
async function openMemory(text: string): Promise<ReturnType<Page['getByLabel']>> {
  await page.goto(`${gateway.wren.url}/#/memory/MEMORY.md`);
  await page.reload();
  const editor = page.getByLabel('Contents of MEMORY.md');
  await expect.poll(() => editor.inputValue(), { timeout: 10_000 }).toBe(text);
  return editor;
}

it('refuses a save over a consolidation that landed meanwhile, shows the conflict, and Keep mine saves', {
  timeout: 60_000,
}, async () => {
  await consolidate('# Memory\n- tea\n');
  const editor = await openMemory('# Memory\n- tea\n');
  await editor.fill('# Memory\n- tea\n- mine: green tea\n');
  await consolidate('# Memory\n- tea\n- Ana lives in Lisbon\n');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  const alert = page.getByRole('alert').filter({ hasText: 'changed while you edited it' });
  await alert.getByText('MEMORY.md changed while you edited it (by consolidation).').waitFor();
  // Nothing lost: the consolidation's text is on disk, the owner's in the editor.
  expect(onDisk()).toBe('# Memory\n- tea\n- Ana lives in Lisbon\n');
  expect(await editor.inputValue()).toBe('# Memory\n- tea\n- mine: green tea\n');
  await alert.getByRole('button', { name: 'Keep mine' }).click();
  await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
  expect(onDisk()).toBe('# Memory\n- tea\n- mine: green tea\n');
  // The consolidation's text is kept as a version all the same.
  const rows = page.locator('.version-row');
  await expect.poll(() => rows.first().textContent()).toContain('web editor');
  expect(await rows.nth(1).textContent()).toContain('consolidation');
});

it('Load the new version puts the file’s new text in the editor, and a save then goes through', {
  timeout: 60_000,
}, async () => {
  await consolidate('# Memory\n- coffee\n');
  const editor = await openMemory('# Memory\n- coffee\n');
  await editor.fill('# Memory\n- coffee\n- my draft\n');
  await consolidate('# Memory\n- coffee\n- cats: two\n');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  const alert = page.getByRole('alert').filter({ hasText: 'changed while you edited it' });
  await alert.getByRole('button', { name: 'Load the new version' }).click();
  expect(await editor.inputValue()).toBe('# Memory\n- coffee\n- cats: two\n');
  expect(await alert.count()).toBe(0);
  await editor.fill('# Memory\n- coffee\n- cats: two\n- dog: one\n');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
  expect(onDisk()).toBe('# Memory\n- coffee\n- cats: two\n- dog: one\n');
});

it('History lists the versions with who made them, shows a diff, and Restore brings an old one back as new', {
  timeout: 60_000,
}, async () => {
  const old = await consolidate('# Memory\n- jasmine tea\n');
  await consolidate('# Memory\n- jasmine tea\n- lives in Porto\n');
  await openMemory('# Memory\n- jasmine tea\n- lives in Porto\n');
  const panel = page.getByRole('region', { name: 'Versions of MEMORY.md' });
  const newest = panel.locator('.version-row').first();
  await newest.getByText('consolidation').waitFor();
  await newest.getByText('session e2e').waitFor();
  await newest.getByRole('button', { name: 'Show changes' }).click();
  await newest.locator('.diff-add').filter({ hasText: '+- lives in Porto' }).waitFor();
  await panel.getByRole('button', { name: `Restore version #${old.version!.id}` }).click();
  await panel.getByText(`Restored version #${old.version!.id} as a new version.`).waitFor();
  expect(onDisk()).toBe('# Memory\n- jasmine tea\n');
  await expect
    .poll(() => page.getByLabel('Contents of MEMORY.md').inputValue())
    .toBe('# Memory\n- jasmine tea\n');
  await panel.locator('.version-row').first().getByText(`revert to #${old.version!.id} (web)`).waitFor();
  expect(await panel.locator('.version-row').first().textContent()).toContain('revert');
});

it('Accept on a memory proposal moves its line to USER.md, which the editor then shows, and the panel goes', {
  timeout: 60_000,
}, async () => {
  const line = '- Prefers replies in English.';
  await consolidate(`# Memory\n- jasmine tea\n${line}\n`);
  // What Dream leaves in the running gateway's database: a proposal to move the line.
  new MemoryProposalRepository(db).add([
    {
      file: 'USER.md',
      text: line,
      key: normalizeFact(line),
      reason: 'a standing preference',
      dreamKey: 'tidy:e2e',
    },
  ]);
  await openMemory(`# Memory\n- jasmine tea\n${line}\n`);
  const panel = page.getByRole('region', { name: 'Proposals' });
  const proposal = panel.getByRole('article', { name: /^Memory proposal / });
  await proposal.getByText('MEMORY.md → USER.md').waitFor();
  await proposal.getByText('a standing preference').waitFor();
  await proposal.getByRole('button', { name: 'Accept' }).click();
  await panel.waitFor({ state: 'detached' });
  await expect
    .poll(() => page.getByLabel('Contents of MEMORY.md').inputValue())
    .toBe('# Memory\n- jasmine tea\n');
  await page
    .getByRole('navigation', { name: 'Memory sections' })
    .getByRole('link', { name: /USER\.md/ })
    .click();
  await expect.poll(() => page.getByLabel('Contents of USER.md').inputValue()).toContain(line);
  expect(readFileSync(join(gateway.home, 'workspace', 'USER.md'), 'utf8')).toContain(line);
  expect(await page.getByRole('region', { name: 'Proposals' }).count()).toBe(0);
});
