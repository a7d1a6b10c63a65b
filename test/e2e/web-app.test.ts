import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeLlmServer, RecordedRequest } from '../fakes/fake-llm-server.js';
import { screenshot } from '../support/browser.js';
import { afterTool, startWebGateway } from '../support/web-gateway.js';
import type { RunningWren } from '../support/wren-home.js';

const TOKEN = 'web-app-e2e-token-0123456789';
let llm: FakeLlmServer;
let wren: RunningWren;
let home: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** Console errors and uncaught exceptions of every page (a CSP violation shows up here). Page-side code is
 * passed to `evaluate` as strings: this project's TypeScript has no DOM types outside web/. */
const problems: string[] = [];

/** The fake model: one script per kind of message the tests send. */
function answer(request: RecordedRequest) {
  const text = request.lastUserText;
  if (text.includes('list the workspace')) {
    return afterTool(request)
      ? { text: 'The workspace is listed above.' }
      : { toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] };
  }
  if (text.includes('write the marker')) {
    return afterTool(request)
      ? { text: 'The marker is written.' }
      : {
          toolCalls: [{ name: 'exec', arguments: { command: 'echo approved-from-browser > marker.txt' } }],
        };
  }
  return {
    chunks: [
      'Hello ',
      'from **Wren**. ',
      'Here is code:\n\n',
      '```js\nconst answer = 42;\n```\n\n',
      'Streamed to the end.',
    ],
    chunkDelayMs: 150,
  };
}

function track(target: Page): void {
  target.on('console', (message) => {
    // The browser logs every failed fetch; expected here: the 401s of "not signed in yet" and of the wrong
    // token, and the API calls of the offline test.
    const expected =
      /Failed to load resource: (the server responded with a status of 401|net::ERR_INTERNET_DISCONNECTED)/;
    if (message.type() === 'error' && !expected.test(message.text()))
      problems.push(`${target.url()}: ${message.text()}`);
  });
  target.on('pageerror', (error) => problems.push(`${target.url()}: ${error.message}`));
}

async function signIn(target: Page): Promise<void> {
  await target.goto(wren.url);
  await target.getByLabel('Gateway token').fill(TOKEN);
  await target.getByRole('button', { name: 'Sign in' }).click();
  await target.getByLabel('Message', { exact: true }).waitFor();
}

async function go(label: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label }).click();
  await page.getByRole('heading', { level: 1, name: label }).waitFor();
}

async function send(text: string): Promise<void> {
  const composer = page.getByLabel('Message', { exact: true });
  await composer.fill(text);
  await composer.press('Enter');
}

beforeAll(async () => {
  ({ llm, home, wren, browser } = await startWebGateway({
    answer,
    token: TOKEN,
    modelKeys: ['vision: true'],
  }));
  context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  page = await context.newPage();
  track(page);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await wren?.stop();
  await llm?.close();
});

describe('the web app in Chromium', { timeout: 40_000 }, () => {
  it('signs in with the gateway token (kept out of page storage)', async () => {
    await page.goto(wren.url);
    await page.getByRole('heading', { name: 'Sign in to Wren' }).waitFor();
    await screenshot(page, 'sign-in');
    await page.getByLabel('Gateway token').fill('wrong-token-000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByLabel('Gateway token').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Message', { exact: true }).waitFor();
    const stored = await page.evaluate<string>('JSON.stringify({ ...localStorage, ...sessionStorage })');
    expect(stored).not.toContain(TOKEN);
    expect(await page.evaluate<string>('document.cookie')).not.toContain('wren_session');
  });

  it('streams a reply from the model as rendered Markdown, with a Stop button while it runs', async () => {
    await send('hello there');
    await page.getByRole('button', { name: 'Stop' }).waitFor();
    await page.getByText('Streamed to the end.').waitFor();
    await expect(page.getByRole('button', { name: 'Stop' }).count()).resolves.toBe(0);
    await expect(page.locator('main strong', { hasText: 'Wren' }).count()).resolves.toBeGreaterThan(0);
    await expect(page.locator('main pre code', { hasText: 'const answer = 42;' }).count()).resolves.toBe(1);
    expect(llm.requests.at(-1)?.lastUserText).toContain('hello there');
    // The conversation is listed under its first message.
    await page.getByRole('navigation', { name: 'Conversations' }).getByText('hello there').waitFor();
    await screenshot(page, 'chat');
  });

  it('shows a tool call appear and complete, with its arguments', async () => {
    await send('please list the workspace');
    await page.getByText('The workspace is listed above.').waitFor();
    const call = page.locator('main').getByText('list_dir').first();
    await call.waitFor();
    await call.click();
    await expect(page.locator('main').getByText('"path"').count()).resolves.toBeGreaterThan(0);
  });

  it('sends an attached picture to a vision model, and uploads any other file to the inbox', async () => {
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      'base64',
    );
    const files = page.locator('input[type=file]');
    await files.setInputFiles([
      { name: 'dot.png', mimeType: 'image/png', buffer: png },
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('remember the milk\n') },
    ]);
    await page.getByRole('button', { name: 'Remove dot.png' }).waitFor();
    await send('what is in the picture?');
    await page.getByText('Streamed to the end.').nth(1).waitFor();
    const sent = JSON.stringify(llm.requests.at(-1)?.body);
    expect(sent).toContain(png.toString('base64'));
    expect(sent).toContain('Attached: inbox/');
    const saved = /Attached: (inbox\/[^\s"\\]+notes\.txt)/.exec(sent)?.[1];
    expect(saved).toBeDefined();
    expect(readFileSync(join(home, 'workspace', saved!), 'utf8')).toBe('remember the milk\n');
  });

  it('holds a command for approval, approved from the approvals page, and the turn finishes', async () => {
    await send('write the marker file');
    const approvals = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /Approvals/ });
    await expect.poll(() => approvals.textContent(), { timeout: 15_000 }).toContain('1');
    expect(existsSync(join(home, 'workspace', 'marker.txt'))).toBe(false);
    await go('Approvals');
    const card = page.getByRole('article', { name: 'Approval: exec' });
    await card.waitFor();
    await screenshot(page, 'approvals');
    await card.getByRole('button', { name: 'Once' }).click();
    await go('Chat');
    await page.getByText('The marker is written.').waitFor({ timeout: 15_000 });
    expect(readFileSync(join(home, 'workspace', 'marker.txt'), 'utf8')).toBe('approved-from-browser\n');
  });

  it('creates a reminder', async () => {
    await go('Reminders');
    await page.getByLabel('Reminder', { exact: true }).fill('water the plants');
    await page.getByLabel('When').fill('tomorrow 9:00');
    await page.getByRole('button', { name: 'Add reminder' }).click();
    await page.locator('main li', { hasText: 'water the plants' }).first().waitFor();
    const listed = await fetch(`${wren.url}/api/reminders`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(JSON.stringify(await listed.json())).toContain('water the plants');
    await screenshot(page, 'reminders');
  });

  it('edits MEMORY.md and the file on disk changes', async () => {
    await go('Memory');
    await page.getByRole('link', { name: /^MEMORY\.md/ }).click();
    const editor = page.getByLabel('Contents of MEMORY.md');
    await editor.waitFor();
    await editor.fill('# Memory\n\n- The owner waters the plants on Sundays.\n');
    await page.getByRole('button', { name: 'Save' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Saved$/ })
      .waitFor();
    const onDisk = readFileSync(join(home, 'workspace', 'MEMORY.md'), 'utf8');
    expect(onDisk).toContain('waters the plants on Sundays');
    await screenshot(page, 'memory');
  });

  it('renders every other page (screenshots for review)', async () => {
    for (const [label, file] of [
      ['Feed', 'feed'],
      ['Tasks', 'tasks'],
      ['Memos', 'memos'],
      ['Goals', 'goals'],
      ['Settings', 'settings'],
    ] as const) {
      await go(label);
      await screenshot(page, file);
    }
  });

  it('switches between light and dark themes', async () => {
    const background = () => page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
    const theme = () => page.evaluate<string | undefined>('document.documentElement.dataset.theme');
    await go('Chat');
    const before = { theme: await theme(), background: await background() };
    await page.getByRole('button', { name: 'Toggle theme' }).click();
    const after = { theme: await theme(), background: await background() };
    expect(after.theme).not.toBe(before.theme);
    expect(after.background).not.toBe(before.background);
    await screenshot(page, `chat-${after.theme}`);
    await page.reload();
    await page.getByLabel('Message', { exact: true }).waitFor();
    expect(await theme()).toBe(after.theme);
  });

  it('works at phone width: no sideways scrolling, navigation behind the menu', async () => {
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    const small = await phone.newPage();
    track(small);
    await signIn(small);
    const width = () => small.evaluate<number>('document.documentElement.scrollWidth');
    expect(await width()).toBeLessThanOrEqual(390);
    await screenshot(small, 'phone-chat');
    await small.getByRole('button', { name: 'Menu' }).click();
    await small.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Reminders' }).click();
    await small.getByRole('heading', { level: 1, name: 'Reminders' }).waitFor();
    expect(await width()).toBeLessThanOrEqual(390);
    await screenshot(small, 'phone-reminders');
    await phone.close();
  });

  it('is an installable app whose shell loads offline (manifest, service worker)', async () => {
    const manifest = await page.evaluate<string | null>(
      "document.querySelector('link[rel=manifest]')?.getAttribute('href') ?? null",
    );
    expect(manifest).toBe('/manifest.webmanifest');
    const active = await page.evaluate<boolean>(
      'navigator.serviceWorker.ready.then((registration) => registration.active !== null)',
    );
    expect(active).toBe(true);
    await context.setOffline(true);
    try {
      await page.reload();
      // The cached shell, saying what is wrong — not a sign-in form for a gateway it cannot reach.
      await page.getByRole('heading', { name: 'Wren is out of reach' }).waitFor();
      expect(await page.evaluate<boolean>("document.querySelector('img.signin-mark').naturalWidth > 0")).toBe(
        true,
      );
      await screenshot(page, 'offline');
    } finally {
      await context.setOffline(false);
    }
    // Back online, it reconnects by itself.
    await page.getByLabel('Message', { exact: true }).waitFor({ timeout: 15_000 });
  });

  it('logged no console errors or exceptions (CSP included)', () => {
    expect(problems).toEqual([]);
  });
});
