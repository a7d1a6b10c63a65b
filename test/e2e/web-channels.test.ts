import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { type FakeTelegram, startFakeTelegram } from '../fakes/fake-telegram-server.js';
import { launchChromium, screenshot } from '../support/browser.js';
import { pagesPerTest } from '../support/web-page.js';
import { cliEnv, makeHome, type RunningWren, startWren, waitFor } from '../support/wren-home.js';

const BOT_TOKEN = '777001:web-test_token-abcdefghij';
const OWNER = 424242;
const STRANGER = 5150;
const GATEWAY_TOKEN = 'web-channels-token-0123456789';
let llm: FakeLlmServer;
let telegram: FakeTelegram;
let wren: RunningWren;
let browser: Browser;
/** The page of the running test (each test opens its own). */
let page: Page;
/** Each test's own pages; the browser's log of the 401 of "not signed in yet" is expected. */
const pages = pagesPerTest({
  browser: () => browser,
  url: () => wren.url,
  token: GATEWAY_TOKEN,
  expectedErrors: /status of 401/,
});

const textsTo = (chat: number) =>
  telegram
    .sent()
    .filter((call) => Number(call.body['chat_id']) === chat)
    .map((call) => String(call.body['text']));

async function go(label: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label }).click();
  await page.getByRole('heading', { level: 1, name: label }).waitFor();
}

beforeAll(async () => {
  llm = await startFakeLlmServer();
  llm.setHandler((request) => ({ text: `Answer to: ${request.lastUserText.split('\n').at(-1)}` }));
  telegram = await startFakeTelegram({ token: BOT_TOKEN });
  const home = makeHome(`
models:
  - name: main
    protocol: openai
    base_url: ${llm.baseUrls.openai}
    model: fake-model
channels:
  telegram:
    token: \${TELEGRAM_BOT_TOKEN}
    owner: [${OWNER}]
    pairing: true
    api_root: ${telegram.apiRoot}
`);
  // Both take a second or so: side by side, each kept as it comes up so afterAll stops what did.
  await Promise.all([
    startWren(cliEnv(home, { WREN_GATEWAY_TOKEN: GATEWAY_TOKEN, TELEGRAM_BOT_TOKEN: BOT_TOKEN })).then(
      (started) => {
        wren = started;
      },
    ),
    launchChromium().then((launched) => {
      browser = launched;
    }),
  ]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await wren?.stop();
  await telegram?.close();
  await llm?.close();
});

describe('chat channels in the web app', { timeout: 40_000 }, () => {
  it('signs in through the one-time link and shows Telegram connected', async () => {
    const link = /web app: (http:\/\/\S+)/.exec(wren.stdout())?.[1];
    expect(link).toBeDefined();
    page = await pages.open({ signedIn: false });
    await page.goto(link!);
    await page.getByLabel('Message', { exact: true }).waitFor();
    await go('Settings');
    const row = page.locator('main li', { hasText: 'telegram' });
    await expect
      .poll(async () => (await row.textContent()) ?? '', { timeout: 15_000 })
      .toContain('connected');
  });

  it('shows a Telegram conversation live, with its messages', async () => {
    page = await pages.open();
    await page.getByLabel('Message', { exact: true }).waitFor();
    telegram.pushMessage({ from: OWNER, text: 'hello from telegram' });
    await waitFor(() => textsTo(OWNER).includes('Answer to: hello from telegram'), 15_000);
    const listed = page.getByRole('navigation', { name: 'Conversations' }).getByText('hello from telegram');
    await listed.waitFor({ timeout: 15_000 });
    await listed.click();
    await page.locator('main').getByText('Answer to: hello from telegram').waitFor();
    await screenshot(page, 'chat-telegram');
  });

  it('approves a stranger’s pairing request from the approvals page', async () => {
    telegram.pushMessage({ from: STRANGER, text: 'can we talk?' });
    await waitFor(() => textsTo(STRANGER).length === 1, 15_000);
    const code = /pairing code is ([A-Z0-9]{8})/.exec(textsTo(STRANGER)[0]!)?.[1];
    expect(code).toBeDefined();
    const calls = llm.requests.length;
    page = await pages.open();
    await go('Approvals');
    await page.getByRole('button', { name: `Approve pairing ${code}` }).click();
    await page.getByRole('button', { name: `Approve pairing ${code}` }).waitFor({ state: 'detached' });
    expect(llm.requests.length).toBe(calls);
    telegram.pushMessage({ from: STRANGER, text: 'and now?' });
    await waitFor(() => textsTo(STRANGER).includes('Answer to: and now?'), 15_000);
  });
});
