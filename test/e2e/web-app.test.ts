import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeLlmServer, RecordedRequest } from '../fakes/fake-llm-server.js';
import { screenshot } from '../support/browser.js';
import { afterTool, startWebGateway } from '../support/web-gateway.js';
import { pagesPerTest } from '../support/web-page.js';
import type { RunningWren } from '../support/wren-home.js';

const TOKEN = 'web-app-e2e-token-0123456789';
let llm: FakeLlmServer;
let wren: RunningWren;
let home: string;
let browser: Browser;
/** Each test's own pages, failing the test on a console error or uncaught exception (a CSP violation shows up
 * there). Expected: the browser's log of the 401s of "not signed in yet" and of the wrong token, and of the
 * API calls of the offline test. Page-side code is passed to `evaluate` as strings: this project's TypeScript
 * has no DOM types outside web/. */
const pages = pagesPerTest({
  browser: () => browser,
  url: () => wren.url,
  token: TOKEN,
  expectedErrors:
    /Failed to load resource: (the server responded with a status of 401|net::ERR_INTERNET_DISCONNECTED)/,
});

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
  if (text.includes('picture')) return { text: 'The picture shows one dot.' };
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

/** Follows a link of the main navigation and waits for the page it opens. */
async function go(page: Page, label: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label }).click();
  await page.getByRole('heading', { level: 1, name: label }).waitFor();
}

async function send(page: Page, text: string): Promise<void> {
  const composer = page.getByLabel('Message', { exact: true });
  await composer.fill(text);
  // Enter sends only once the composer can (attachments uploaded, the app connected).
  await expect.poll(() => page.getByRole('button', { name: 'Send' }).isEnabled()).toBe(true);
  await composer.press('Enter');
}

/** Creates something through the gateway's API, as another device of the owner would. */
async function post(path: string, body: object): Promise<void> {
  const response = await fetch(`${wren.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.ok, `POST ${path}: ${response.status}`).toBe(true);
}

beforeAll(async () => {
  ({ llm, home, wren, browser } = await startWebGateway({
    answer,
    token: TOKEN,
    modelKeys: ['vision: true'],
  }));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await wren?.stop();
  await llm?.close();
});

describe('the web app in Chromium', { timeout: 40_000 }, () => {
  it('signs in with the gateway token (kept out of page storage)', async () => {
    const page = await pages.open({ signedIn: false });
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
    const page = await pages.open();
    await send(page, 'hello there');
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
    const page = await pages.open();
    await send(page, 'please list the workspace');
    await page.getByText('The workspace is listed above.').waitFor();
    const call = page.locator('main').getByText('list_dir').first();
    await call.waitFor();
    await call.click();
    await expect(page.locator('main').getByText('"path"').count()).resolves.toBeGreaterThan(0);
  });

  it('sends an attached picture to a vision model, and uploads any other file to the inbox', async () => {
    const page = await pages.open();
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
    await send(page, 'what is in the picture?');
    await page.getByText('The picture shows one dot.').waitFor();
    const sent = JSON.stringify(llm.requests.at(-1)?.body);
    expect(sent).toContain(png.toString('base64'));
    expect(sent).toContain('Attached: inbox/');
    const saved = /Attached: (inbox\/[^\s"\\]+notes\.txt)/.exec(sent)?.[1];
    expect(saved).toBeDefined();
    expect(readFileSync(join(home, 'workspace', saved!), 'utf8')).toBe('remember the milk\n');
  });

  it('holds a command for approval, approved from the approvals page, and the turn finishes', async () => {
    const page = await pages.open();
    await send(page, 'write the marker file');
    const approvals = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /Approvals/ });
    await expect.poll(() => approvals.textContent(), { timeout: 15_000 }).toContain('1');
    expect(existsSync(join(home, 'workspace', 'marker.txt'))).toBe(false);
    await go(page, 'Approvals');
    const card = page.getByRole('article', { name: 'Approval: exec' });
    await card.waitFor();
    await screenshot(page, 'approvals');
    await card.getByRole('button', { name: 'Once' }).click();
    await go(page, 'Chat');
    await page.getByText('The marker is written.').waitFor({ timeout: 15_000 });
    expect(readFileSync(join(home, 'workspace', 'marker.txt'), 'utf8')).toBe('approved-from-browser\n');
  });

  it('creates a reminder', async () => {
    const page = await pages.open({ at: '#/reminders' });
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
    const page = await pages.open({ at: '#/memory' });
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

  it('shows the feed, tasks, memos, goals and settings with what the gateway holds', async () => {
    await post('/api/tasks', { title: 'Renew the passport' });
    await post('/api/memos', { text: 'The bakery on Elm Street opens at seven.' });
    await post('/api/goals', { title: 'Run a half marathon' });
    const page = await pages.open();
    const main = page.locator('main');
    const region = (name: string) => main.getByRole('region', { name, exact: true });
    // Each page: its form or list, filled from the API — missing if the page or its request broke.
    const shows: Array<[label: string, file: string, check: () => Promise<void>]> = [
      ['Feed', 'feed', () => main.getByText('Nothing in the feed yet').waitFor()],
      [
        'Tasks',
        'tasks',
        async () => {
          await main.getByRole('form', { name: 'New task' }).getByLabel('Title').waitFor();
          await region('Open tasks').getByRole('checkbox', { name: 'Done: Renew the passport' }).waitFor();
        },
      ],
      [
        'Memos',
        'memos',
        async () => {
          await main.getByRole('form', { name: 'New memo' }).getByLabel('Memo').waitFor();
          await region('Recent memos').getByText('The bakery on Elm Street opens at seven.').waitFor();
        },
      ],
      [
        'Goals',
        'goals',
        async () => {
          await main.getByRole('form', { name: 'New goal' }).waitFor();
          await region('Active goals')
            .getByRole('link', { name: /Run a half marathon/ })
            .waitFor();
        },
      ],
      [
        'Settings',
        'settings',
        async () => {
          await region('Models').getByText('fake · fake-model').waitFor();
          await region('Appearance').waitFor();
          await region('About')
            .getByText(/\d+\.\d+\.\d+/)
            .waitFor();
        },
      ],
    ];
    for (const [label, file, check] of shows) {
      await go(page, label);
      await check();
      // Shown once loaded, so an error the page reported would be on screen by now.
      await expect(main.getByRole('alert').count(), `${label}: an error note`).resolves.toBe(0);
      await screenshot(page, file);
    }
  });

  it('switches between light and dark themes', async () => {
    const page = await pages.open();
    const background = () => page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
    const theme = () => page.evaluate<string | undefined>('document.documentElement.dataset.theme');
    await page.getByLabel('Message', { exact: true }).waitFor();
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
    const small = await pages.open({
      context: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
    });
    await small.getByLabel('Message', { exact: true }).waitFor();
    const width = () => small.evaluate<number>('document.documentElement.scrollWidth');
    expect(await width()).toBeLessThanOrEqual(390);
    await screenshot(small, 'phone-chat');
    await small.getByRole('button', { name: 'Menu' }).click();
    await small.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Reminders' }).click();
    await small.getByRole('heading', { level: 1, name: 'Reminders' }).waitFor();
    expect(await width()).toBeLessThanOrEqual(390);
    await screenshot(small, 'phone-reminders');
  });

  it('is an installable app whose shell loads offline (manifest, service worker)', async () => {
    const page = await pages.open({ context: { serviceWorkers: 'allow' } });
    await page.getByLabel('Message', { exact: true }).waitFor();
    const manifest = await page.evaluate<string | null>(
      "document.querySelector('link[rel=manifest]')?.getAttribute('href') ?? null",
    );
    expect(manifest).toBe('/manifest.webmanifest');
    const active = await page.evaluate<boolean>(
      'navigator.serviceWorker.ready.then((registration) => registration.active !== null)',
    );
    expect(active).toBe(true);
    // The app retries every few seconds by its timers (Playwright's offline switch fires no `online` event),
    // so the reloaded page runs on a clock the test can move on instead of waiting those seconds out.
    await page.clock.install();
    await page.context().setOffline(true);
    try {
      await page.reload();
      // The cached shell, saying what is wrong — not a sign-in form for a gateway it cannot reach.
      await page.getByRole('heading', { name: 'Wren is out of reach' }).waitFor();
      expect(await page.evaluate<boolean>("document.querySelector('img.signin-mark').naturalWidth > 0")).toBe(
        true,
      );
      await screenshot(page, 'offline');
    } finally {
      await page.context().setOffline(false);
    }
    // Back online, it reconnects by itself: at its next retry, which the clock reaches at once.
    await page.clock.fastForward(10_000);
    await page.getByLabel('Message', { exact: true }).waitFor({ timeout: 15_000 });
  });
});
