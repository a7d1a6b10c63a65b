import { resolve } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../src/agent/memory-session-store.js';
import { MessageBus } from '../../src/bus/message-bus.js';
import { ChannelManager } from '../../src/channels/channel-manager.js';
import { HttpChannel } from '../../src/channels/http/http-channel.js';
import { BrowserSessions } from '../../src/gateway/browser-sessions.js';
import { createGateway } from '../../src/gateway/create-gateway.js';
import { type RunningGateway, serveGateway } from '../../src/gateway/serve-gateway.js';
import { launchChromium, screenshot } from '../support/browser.js';
import { DeviceChannel, TokenChannel } from '../support/device-channel.js';
import { pagesPerTest } from '../support/web-page.js';

/**
 * Linking WhatsApp from Settings → Channels, in real Chromium against the real gateway and its channel routes,
 * served in-process from the built web app (dist/web: `npx vite build --config web/vite.config.ts`). A spawned
 * `wren start` cannot link WhatsApp (Baileys needs WhatsApp's servers), so a DeviceChannel stands where the
 * adapter would: the test offers QR codes and pairing codes and connects it, as the platform's events would.
 */

const TOKEN = 'web-channel-link-token-0123456789';

const whatsapp = new DeviceChannel();
const telegram = new TokenChannel();
let served: RunningGateway;
let url: string;
let browser: Browser;
let page: Page;
/**
 * Each test's own pages. Chromium logs every 4xx/5xx answer as a console error: the 400 of a bad phone number
 * and the 409/502 of a test message that cannot go are outcomes these tests provoke, and this minimal gateway
 * (no gate, models, settings…) answers the other pages' calls with 404 or 503, shown as their own notes.
 */
const pages = pagesPerTest({
  browser: () => browser,
  url: () => url,
  token: TOKEN,
  expectedErrors: /Failed to load resource: the server responded with a status of (400|401|404|409|502|503)/,
});

beforeAll(async () => {
  const manager = new ChannelManager();
  manager.register(whatsapp);
  manager.register(telegram);
  const values = new Map<string, string>();
  const app = createGateway({
    channel: new HttpChannel({ bus: new MessageBus() }),
    sessions: new MemorySessionStore(),
    verifyToken: (presented) => presented === TOKEN,
    // The real manager lists the channels, so `linkable` comes from the same place as in `wren start`.
    status: () => ({ version: '9.9.9', uptimeSeconds: 1, models: [], channels: manager.status() }),
    version: '9.9.9',
    startedAt: Date.now(),
    channelControls: {
      running: (name) => manager.get(name),
      known: (name) => ['whatsapp', 'telegram'].includes(name),
      whyNotRunning: (name) => `The ${name} channel is not configured.`,
      redact: (text) => text.replaceAll('secret-token', '[redacted]'),
    },
    browserSessions: new BrowserSessions({
      get: (key) => values.get(key),
      set: (key, value) => void values.set(key, value),
    }),
    webRoot: resolve('dist/web'),
  });
  served = await serveGateway(app, '127.0.0.1', 0);
  url = `http://127.0.0.1:${served.port}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await served?.close();
});

/** The WhatsApp row of Settings → Channels on a fresh page. */
async function whatsappRow(): Promise<Locator> {
  page = await pages.open({ at: '#/settings' });
  await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
  const row = page.locator('.channel-row', { hasText: 'whatsapp' });
  await row.waitFor();
  return row;
}

/** The drawn QR code's markup (its modules), to tell one code from the next. */
const drawing = (row: Locator) => row.getByRole('img', { name: 'WhatsApp link code' }).innerHTML();

describe('linking a channel from Settings', { timeout: 40_000 }, () => {
  it('links by QR code: draws each code as it rotates, then shows connected', async () => {
    whatsapp.reset();
    const row = await whatsappRow();
    await expect.poll(async () => row.textContent()).toContain('logged-out');
    await row.getByRole('button', { name: 'Link WhatsApp', exact: true }).click();
    await row.getByRole('button', { name: 'Show QR code' }).click();
    await expect.poll(() => whatsapp.requests).toEqual([{ method: 'qr' }]);
    await row.getByText('Waiting for a code from WhatsApp').waitFor();

    whatsapp.offer({ qr: '2@first-qr-payload,abc,def', expiresAt: Date.now() + 20_000 });
    const qr = row.getByRole('img', { name: 'WhatsApp link code' });
    await qr.waitFor();
    expect(await row.locator('svg[role="img"][aria-label="WhatsApp link code"]').count()).toBe(1);
    await row.getByText('Settings → Linked devices → Link a device').waitFor();
    const first = await drawing(row);
    expect(first).toMatch(/<path d="M/);
    await row.scrollIntoViewIfNeeded();
    await screenshot(page, 'settings-whatsapp-qr');

    whatsapp.offer({ qr: '2@second-qr-payload,ghi,jkl', expiresAt: Date.now() + 20_000 });
    await expect.poll(() => drawing(row), { timeout: 10_000 }).not.toBe(first);
    expect(await row.getByRole('img').count()).toBe(1);

    whatsapp.reset('connected');
    await qr.waitFor({ state: 'detached', timeout: 10_000 });
    await expect.poll(async () => row.locator('.badge').textContent()).toBe('connected');
    await row.getByRole('button', { name: 'Unlink WhatsApp' }).waitFor();
    expect(await row.getByRole('button', { name: 'Link WhatsApp', exact: true }).count()).toBe(0);
  });

  it('unlinks only after the owner confirms', async () => {
    whatsapp.reset('connected');
    const row = await whatsappRow();
    const questions: string[] = [];
    let accept = false;
    page.on('dialog', (dialog) => {
      questions.push(dialog.message());
      void (accept ? dialog.accept() : dialog.dismiss());
    });
    await row.getByRole('button', { name: 'Unlink WhatsApp' }).click();
    await expect.poll(() => questions.length).toBe(1);
    expect(questions[0]).toMatch(/^Unlink WhatsApp\? .*logged out/);
    expect(whatsapp.unlinked).toBe(0);

    accept = true;
    await row.getByRole('button', { name: 'Unlink WhatsApp' }).click();
    await row.getByText('Unlinked: WhatsApp logged this device out.').waitFor();
    expect(whatsapp.unlinked).toBe(1);
    await expect.poll(async () => row.locator('.badge').textContent()).toMatch(/^logged-out: unlinked/);
    await row.getByRole('button', { name: 'Link WhatsApp', exact: true }).waitFor();
  });

  it('links by phone number: shows the pairing code', async () => {
    whatsapp.reset();
    const row = await whatsappRow();
    await row.getByRole('button', { name: 'Link WhatsApp', exact: true }).click();
    await row.getByRole('radio', { name: 'Phone number' }).check();
    await row.getByLabel('Phone number, with its country code').fill('+49 151 1234-5678');
    await row.getByRole('button', { name: 'Get pairing code' }).click();
    await expect.poll(() => whatsapp.requests).toEqual([{ method: 'code', phone: '4915112345678' }]);
    whatsapp.offer({ code: 'WREN2468' });
    const code = row.getByRole('status', { name: 'WhatsApp pairing code' });
    await code.waitFor({ timeout: 10_000 });
    expect(await code.textContent()).toBe('WREN2468');
    await row.getByText('Link with phone number instead').waitFor();
    expect(await row.getByRole('img', { name: 'WhatsApp link code' }).count()).toBe(0);
  });

  it('shows the route’s message for a bad phone number, and asks nothing of the channel', async () => {
    whatsapp.reset();
    const row = await whatsappRow();
    await row.getByRole('button', { name: 'Link WhatsApp', exact: true }).click();
    await row.getByRole('radio', { name: 'Phone number' }).check();
    const phone = row.getByLabel('Phone number, with its country code');
    await phone.fill('0151');
    await row.getByRole('button', { name: 'Get pairing code' }).click();
    const alert = row.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(
      'phone: use the full number with its country code, digits only (e.g. +4915112345678)',
    );
    expect(await phone.getAttribute('aria-invalid')).toBe('true');
    expect(whatsapp.requests).toEqual([]);
    // Escape closes the form and gives the focus back to Link.
    await phone.press('Escape');
    await row.getByRole('form').waitFor({ state: 'detached' });
    expect(await page.evaluate('document.activeElement?.getAttribute("aria-label")')).toBe('Link WhatsApp');
  });

  it('sends a test message and shows the answer or the platform’s refusal', async () => {
    whatsapp.reset('linking');
    telegram.refuse = undefined;
    page = await pages.open({ at: '#/settings' });
    const row = page.locator('.channel-row', { hasText: 'telegram' });
    await row.getByRole('button', { name: 'Send test on telegram' }).click();
    await row.getByText('Sent to you on telegram.').waitFor();
    expect(telegram.sent.map((message) => [message.chatId, message.kind])).toEqual([['42', 'notice']]);
    // A token platform offers no Link or Unlink.
    expect(await row.getByRole('button').count()).toBe(1);

    telegram.refuse = 'Unauthorized: bot secret-token was revoked';
    await row.getByRole('button', { name: 'Send test on telegram' }).click();
    await row.getByText('Unauthorized: bot [redacted] was revoked').waitFor();

    // WhatsApp is still linking: the route says why it cannot send yet.
    const device = page.locator('.channel-row', { hasText: 'whatsapp' });
    await device.getByRole('button', { name: 'Send test on WhatsApp' }).click();
    await device.getByText('The whatsapp channel is linking; it can send once it is connected.').waitFor();
  });

  it('is usable in the dark theme by keyboard alone', async () => {
    whatsapp.reset();
    page = await pages.open({ at: '#/settings', context: { colorScheme: 'dark' } });
    const row = page.locator('.channel-row', { hasText: 'whatsapp' });
    const link = row.getByRole('button', { name: 'Link WhatsApp', exact: true });
    await link.focus();
    await page.keyboard.press('Enter');
    // The form takes the focus on its first choice (QR code); the next Tab stop is its submit button.
    await expect.poll(() => page.evaluate('document.activeElement?.type')).toBe('radio');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Show QR code');
    await page.keyboard.press('Enter');
    await expect.poll(() => whatsapp.requests).toEqual([{ method: 'qr' }]);
    whatsapp.offer({ qr: '2@dark-theme-qr,abc,def' });
    const qr = row.getByRole('img', { name: 'WhatsApp link code' });
    await qr.waitFor({ timeout: 10_000 });
    // The code stays dark on white whatever the theme, as phone cameras expect.
    expect(await qr.locator('rect').getAttribute('fill')).toBe('#ffffff');
    expect(await page.evaluate('document.documentElement.dataset.theme')).toBe('dark');
    await row.scrollIntoViewIfNeeded();
    await screenshot(page, 'settings-whatsapp-qr-dark');
  });
});
