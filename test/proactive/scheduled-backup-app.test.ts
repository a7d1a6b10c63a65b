import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createApp, type WrenApp } from '../../src/app/create-app.js';
import { ScriptedModel } from '../support/scripted-model.js';
import { makeHome, waitFor } from '../support/wren-home.js';

const apps: WrenApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close(1000);
});

it('a home with backup.every takes one scheduled backup (no secrets, 0600) and says so in the feed', async () => {
  const home = makeHome('backup:\n  every: 1d\n  keep: 2\n');
  const wren = await createApp({ home, model: new ScriptedModel(), probeLocalModels: false, env: {} });
  apps.push(wren);
  expect(wren.proactive.start()).toBe(true);
  const folder = join(home, 'backups');
  await waitFor(() => existsSync(folder) && readdirSync(folder).some((name) => name.endsWith('.tar.gz')));
  const archives = readdirSync(folder).filter((name) => name.endsWith('.tar.gz'));
  expect(archives).toEqual([expect.stringMatching(/^wren-scheduled-\d{8}-\d{6}\.tar\.gz$/)]);
  expect(statSync(join(folder, archives[0]!)).mode & 0o777).toBe(0o600);
  await waitFor(() => wren.proactive.outbox.feed().some((entry) => entry.kind === 'backup'));
});
