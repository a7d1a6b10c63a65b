import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { launchChromium, screenshot } from '../support/browser.js';
import { cliEnv, makeHome, type RunningWren, startWren } from '../support/wren-home.js';

const TOKEN = 'web-onboarding-token-0123456789';
const KEY = 'sk-onboard-SECRET-9876543210';
let llm: FakeLlmServer;
let wren: RunningWren;
let home: string;
let browser: Browser;

beforeAll(async () => {
  llm = await startFakeLlmServer({ apiKey: KEY });
  llm.setHandler(() => ({ text: 'Hello, I am set up.' }));
  home = makeHome('# no model yet\n');
  wren = await startWren(cliEnv(home, { WREN_GATEWAY_TOKEN: TOKEN }));
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await wren?.stop();
  await llm?.close();
});

describe('first-run setup in the web app', { timeout: 60_000 }, () => {
  it('offers setup without a model, refuses a key that fails the test, then saves one that works', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(wren.url);
    await page.getByLabel('Gateway token').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const dialog = page.getByRole('dialog', { name: 'Set up a model' });
    await dialog.waitFor();
    await dialog.getByLabel('Another OpenAI-compatible server').check();
    await dialog.getByLabel(/^API key/).fill('sk-wrong-key-000000000');
    await dialog.getByLabel('Model (optional)').fill('fake-model');
    await dialog.getByLabel('Base URL (optional)').fill(llm.baseUrls.openai);
    await screenshot(page, 'onboarding');
    await dialog.getByRole('button', { name: 'Test and save' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'The test failed' }).waitFor();
    expect(readFileSync(join(home, 'config.yaml'), 'utf8')).not.toContain('fake-model');

    await dialog.getByLabel(/^API key/).fill(KEY);
    await dialog.getByRole('button', { name: 'Test and save' }).click();
    await dialog.getByText('Saved as model').waitFor({ timeout: 30_000 });
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.content()).not.toContain(KEY);

    const config = readFileSync(join(home, 'config.yaml'), 'utf8');
    expect(config).toContain('fake-model');
    expect(config).toContain('${WREN_CUSTOM_API_KEY}');
    expect(config).not.toContain(KEY);
    expect(readFileSync(join(home, '.env'), 'utf8')).toContain(`WREN_CUSTOM_API_KEY=${KEY}`);

    // The running Wren picks the model up from config.yaml without a restart.
    const composer = page.getByLabel('Message', { exact: true });
    await expect
      .poll(
        async () => {
          await composer.fill('are you there?');
          await composer.press('Enter');
          await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'detached' });
          return page.locator('main').getByText('Hello, I am set up.').count();
        },
        { timeout: 30_000, interval: 1000 },
      )
      .toBeGreaterThan(0);
    expect(wren.stdout() + wren.stderr()).not.toContain(KEY);
  });
});
