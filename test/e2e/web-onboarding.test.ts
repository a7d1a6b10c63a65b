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
    await dialog.getByLabel('Model', { exact: true }).fill('fake-model');
    await dialog.getByLabel('Base URL', { exact: true }).fill(llm.baseUrls.openai);
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

  it('“Another server” needs no key, and offers the models the server lists once its URL is in', async () => {
    const local = await startFakeLlmServer({ models: ['qwen3:8b', 'llama3.2'] });
    local.setHandler(() => ({ text: 'Local model here.' }));
    const fresh = makeHome('# no model yet\n');
    const own = await startWren(cliEnv(fresh, { WREN_GATEWAY_TOKEN: TOKEN }));
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      await page.goto(own.url);
      await page.getByLabel('Gateway token').fill(TOKEN);
      await page.getByRole('button', { name: 'Sign in' }).click();
      const dialog = page.getByRole('dialog', { name: 'Set up a model' });
      await dialog.getByLabel('Another OpenAI-compatible server').check();
      await dialog.getByText(/Only if the server asks for one/).waitFor();
      expect(await dialog.getByLabel(/^API key/).getAttribute('required')).toBeNull();
      // A URL that is not http(s) asks nothing; a server's URL lists its models.
      await dialog.getByLabel('Base URL', { exact: true }).fill('file:///etc/passwd');
      await expect(dialog.getByLabel(/^Models on this server/).count()).resolves.toBe(0);
      await dialog.getByLabel('Base URL', { exact: true }).fill(local.baseUrls.openai);
      const picker = dialog.getByLabel('Models on this server (2)');
      await picker.waitFor();
      expect(await picker.locator('option:not([disabled])').allTextContents()).toEqual([
        'qwen3:8b',
        'llama3.2',
      ]);
      await picker.selectOption('llama3.2');
      expect(await dialog.getByLabel('Model', { exact: true }).inputValue()).toBe('llama3.2');
      await picker.scrollIntoViewIfNeeded();
      await screenshot(page, 'onboarding-server-models');
      await dialog.getByRole('button', { name: 'Test and save' }).click();
      await dialog.getByText('Saved as model').waitFor({ timeout: 30_000 });
      const config = readFileSync(join(fresh, 'config.yaml'), 'utf8');
      expect(config).toContain('model: llama3.2');
      expect(config).not.toContain('api_key');
      expect(local.requests.at(-1)?.apiKey).toBeUndefined();
    } finally {
      await own.stop();
      await local.close();
    }
  });
});
