import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeLlmServer, RecordedRequest } from '../fakes/fake-llm-server.js';
import { screenshot } from '../support/browser.js';
import { afterTool, startWebGateway } from '../support/web-gateway.js';
import type { RunningWren } from '../support/wren-home.js';

/**
 * What a new owner meets in the web app's first hour (issue 18): each test signs in its own page, so any one
 * runs alone with `-t`. Screenshots land in test-results/first-hour-*.png for a person to look at.
 */

const TOKEN = 'web-first-hour-token-0123456789';
/** The owner's configured zone; the browser runs in another one unless a test says otherwise. */
const OWNER_ZONE = 'Europe/Berlin';
let llm: FakeLlmServer;
let wren: RunningWren;
let home: string;
let browser: Browser;
const problems: string[] = [];
const contexts: BrowserContext[] = [];

function answer(request: RecordedRequest) {
  if (request.lastUserText.includes('touch the marker')) {
    return afterTool(request)
      ? { text: 'Done with the marker.' }
      : { toolCalls: [{ name: 'exec', arguments: { command: 'echo first-hour > marker.txt' } }] };
  }
  return { text: 'Noted.' };
}

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${wren.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...init.headers },
  });

/** A signed-in page in a fresh browser context (en-US; the browser's zone is New York unless given). */
async function signedIn(
  options: { width?: number; timezoneId?: string; mobile?: boolean } = {},
): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: 860 },
    locale: 'en-US',
    timezoneId: options.timezoneId ?? 'America/New_York',
    ...(options.mobile ? { isMobile: true, hasTouch: true } : {}),
  });
  contexts.push(context);
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error' && !/status of (400|401|410)/.test(message.text()))
      problems.push(`${page.url()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`${page.url()}: ${error.message}`));
  await page.goto(wren.url);
  await page.getByLabel('Gateway token').fill(TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Message', { exact: true }).waitFor();
  return page;
}

async function go(page: Page, label: string): Promise<void> {
  const nav = page.getByRole('navigation', { name: 'Main' });
  if (!(await nav.isVisible())) await page.getByRole('button', { name: 'Menu' }).click();
  await nav.getByRole('link', { name: new RegExp(`^${label}`) }).click();
  await page.getByRole('heading', { level: 1, name: label }).waitFor();
}

/** The visible text of the page without the parts that quote the owner's own words. */
const visibleText = (page: Page) => page.evaluate<string>('document.body.innerText');

beforeAll(async () => {
  ({ llm, home, wren, browser } = await startWebGateway({
    answer,
    token: TOKEN,
    config: ['agent:', `  timezone: ${OWNER_ZONE}`],
  }));
}, 60_000);

afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => {});
  await browser?.close();
  await wren?.stop();
  await llm?.close();
});

describe('the web app in the first hour', { timeout: 45_000 }, () => {
  it('Settings → About shows the process memory in MB (not NaN)', async () => {
    const page = await signedIn();
    await go(page, 'Settings');
    const about = page.getByRole('region', { name: 'About' });
    const memory = about.locator('dt', { hasText: 'Memory' }).locator('xpath=following-sibling::dd[1]');
    await expect.poll(() => memory.textContent()).toMatch(/^\d+ MB$/);
    expect(await about.textContent()).not.toContain('NaN');
    await screenshot(page, 'first-hour-about');
  });

  it('a used sign-in link shows a styled page that says what happened and what to do', async () => {
    const made = await api('/api/session/link', { method: 'POST' });
    const { url } = (await made.json()) as { url: string };
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(303);
    const page = await (await browser.newContext({ locale: 'en-US' })).newPage();
    contexts.push(page.context());
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused/.test(message.text())) violations.push(message.text());
    });
    const response = await page.goto(url);
    expect(response?.status()).toBe(410);
    await page
      .getByRole('heading', { level: 1, name: 'This sign-in link has expired or was already used' })
      .waitFor();
    await page.getByText('A sign-in link works once, within 10 minutes of being made.').waitFor();
    await expect(page.locator('code', { hasText: 'wren web open' }).count()).resolves.toBeGreaterThan(0);
    // The inline style applied (the CSP allows it by hash): the app's card, not browser-default text.
    const card = await page.evaluate<{ radius: string; font: string; image: boolean }>(
      `(() => { const main = getComputedStyle(document.querySelector('main'));
        return { radius: main.borderRadius, font: getComputedStyle(document.body).fontFamily,
          image: document.querySelector('img').naturalWidth > 0 }; })()`,
    );
    expect(card).toEqual({ radius: '18px', font: expect.stringContaining('system-ui'), image: true });
    expect(violations).toEqual([]);
    await screenshot(page, 'first-hour-used-link');
    await page.getByRole('link', { name: 'Sign in with the gateway token' }).click();
    await page.getByLabel('Gateway token').waitFor();
  });

  it('shows a reminder’s times in one format — the browser’s locale, the owner’s zone', async () => {
    // The browser in the owner's zone: times carry no zone name, 12-hour as en-US writes them.
    const page = await signedIn({ timezoneId: OWNER_ZONE });
    await go(page, 'Reminders');
    await page.getByLabel('Reminder', { exact: true }).fill('water the ferns');
    await page.getByLabel('When').fill('tomorrow 9:00');
    await page.getByRole('button', { name: 'Add reminder' }).click();
    const done = page.getByRole('status').filter({ hasText: /^Scheduled/ });
    await done.waitFor();
    const confirmation = (await done.textContent()) ?? '';
    expect(confirmation).toMatch(/^Scheduled for \w+day, \w+ \d{1,2}, \d{4} at 9:00\sAM\.$/);
    expect(confirmation).not.toMatch(/UTC|Europe|09:00/);
    const row = page.locator('main li', { hasText: 'water the ferns' });
    await row.waitFor();
    expect(await row.textContent()).toMatch(/next \w{3}, \w{3} \d{1,2}, 9:00\sAM/);
    await page.getByLabel('Reminder', { exact: true }).fill('stand-up');
    await page.getByLabel('When').fill('every weekday at 7:30');
    await page.getByRole('button', { name: 'Add reminder' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Scheduled every weekday at 7:30\sAM; first \w+day, .* at 7:30\sAM\.$/ })
      .waitFor();
    // Its rule in words, as the confirmation says it (the cron is the tooltip).
    await page
      .locator('main li', { hasText: 'stand-up' })
      .getByText(/^repeats every weekday at 7:30\sAM$/)
      .waitFor();
    await screenshot(page, 'first-hour-reminders');

    // A browser elsewhere still shows the owner's zone, and says which zone it is.
    const away = await signedIn({ timezoneId: 'America/New_York' });
    await go(away, 'Reminders');
    const awayRow = away.locator('main li', { hasText: 'water the ferns' });
    await expect.poll(() => awayRow.textContent()).toMatch(/next \w{3}, \w{3} \d{1,2}, 9:00\sAM GMT\+1/);
  });

  it('shows due dates of tasks in the browser’s way, and “overdue” by the owner’s calendar', async () => {
    for (const [title, due] of [
      ['file the taxes', '2031-04-15 14:30'],
      ['renew the passport', '2031-06-01'],
      ['long overdue', '2020-01-31'],
    ]) {
      const made = await api('/api/tasks', { method: 'POST', body: JSON.stringify({ title, due }) });
      expect(made.status).toBe(201);
    }
    const page = await signedIn({ timezoneId: OWNER_ZONE });
    await go(page, 'Tasks');
    const row = (title: string) => page.locator('main li', { hasText: title });
    await row('file the taxes')
      .getByText(/^due Tue, Apr 15, 2031, 2:30\sPM$/)
      .waitFor();
    await row('renew the passport')
      .getByText(/^due Sun, Jun 1, 2031$/)
      .waitFor();
    await expect(
      row('long overdue').locator('.badge.tone-bad', { hasText: 'due Fri, Jan 31, 2020' }).count(),
    ).resolves.toBe(1);
    await expect(row('file the taxes').locator('.badge.tone-bad').count()).resolves.toBe(0);
    expect(await page.locator('main').textContent()).not.toMatch(/\d{4}-\d{2}-\d{2}/);
  });

  it('says in the sidebar what is due next: “Next reminder: <text> · <time>”', async () => {
    // Only this one is upcoming, whatever the other tests scheduled.
    const { reminders } = (await (await api('/api/reminders')).json()) as {
      reminders: Array<{ id: number }>;
    };
    for (const { id } of reminders) await api(`/api/reminders/${id}`, { method: 'DELETE' });
    const created = await api('/api/reminders', {
      method: 'POST',
      body: JSON.stringify({ text: 'stretch', when: 'in 5m' }),
    });
    expect(created.status).toBe(201);
    const page = await signedIn({ timezoneId: OWNER_ZONE });
    const next = page.locator('.sidebar a.next-due');
    await expect
      .poll(() => next.textContent(), { timeout: 15_000 })
      .toMatch(/^Next reminder: stretch · \d{1,2}:\d{2}\s[AP]M \(in [45] min\.?\)$/);
    expect(await next.getAttribute('href')).toBe('#/reminders');
    await screenshot(page, 'first-hour-next-reminder');
  });

  it('badges the app’s own conversations “web”, titles them in plain text, and clips nothing at 360 px', async () => {
    const page = await signedIn({ width: 360, mobile: true });
    const composer = page.getByLabel('Message', { exact: true });
    await composer.fill('# Plan **today** with `npm test` and [the docs](https://example.com/x)');
    await composer.press('Enter');
    await page.getByText('Noted.').waitFor();
    await page
      .getByRole('heading', { level: 1, name: 'Chat: Plan today with npm test and the docs' })
      .waitFor();
    await expect(page.locator('.chat-header .badge.channel').textContent()).resolves.toBe('web');
    await page.getByRole('button', { name: 'Conversations', exact: true }).click();
    const list = page.getByRole('navigation', { name: 'Conversations' });
    const entry = list.getByRole('link', { name: /Plan today with npm test and the docs/ });
    await entry.waitFor();
    expect(await entry.textContent()).not.toMatch(/[*#`[\]]/);
    await expect(entry.locator('.badge.channel').textContent()).resolves.toBe('web');
    // No badge is cut: each shows its whole word.
    const clipped = await page.evaluate<string[]>(
      `[...document.querySelectorAll('.badge.channel')].filter((b) => b.getClientRects().length &&
        b.scrollWidth > b.clientWidth + 1).map((b) => b.textContent)`,
    );
    expect(clipped).toEqual([]);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    await page.evaluate('Promise.all(document.getAnimations().map((animation) => animation.finished))');
    await screenshot(page, 'first-hour-phone-conversations');
  });

  it('an approval card says “asked just now · expires in 10 min.”, not “in a moment”', async () => {
    const page = await signedIn();
    const composer = page.getByLabel('Message', { exact: true });
    await composer.fill('please touch the marker file');
    await composer.press('Enter');
    const card = page.getByRole('article', { name: 'Approval: exec' }).first();
    await card.waitFor({ timeout: 15_000 });
    const when = card.locator('.approval-expiry');
    expect(await when.textContent()).toMatch(/^asked just now · expires in 10 min\.?$/);
    await expect(card.getByText('web', { exact: true }).count()).resolves.toBe(1);
    await screenshot(page, 'first-hour-approval');
    await card.getByRole('button', { name: 'Deny' }).click();
    await card.waitFor({ state: 'detached' });
  });

  it('quiet hours: a bad value gets one plain sentence, a good one says it was saved', async () => {
    const page = await signedIn();
    await go(page, 'Settings');
    const field = page.getByLabel('Quiet hours', { exact: true });
    await field.fill('22:00');
    await page.getByRole('button', { name: 'Save quiet hours' }).click();
    const refusal = page.locator('#quietHours-error');
    await refusal.waitFor();
    expect(await refusal.textContent()).toBe(
      'Quiet hours must look like 22:00-07:00 (HH:MM-HH:MM, 24-hour time); nothing was saved.',
    );
    await field.fill('22:00-07:00');
    await page.getByRole('button', { name: 'Save quiet hours' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved to config.yaml.' }).waitFor();
    await expect(refusal.count()).resolves.toBe(0);
    expect(readFileSync(join(home, 'config.yaml'), 'utf8')).toMatch(/quiet_hours: 22:00-07:00/);
    await screenshot(page, 'first-hour-quiet-hours');
    // Editing again takes the note away until the next save.
    await field.fill('23:00-07:00');
    await expect(page.getByRole('status').filter({ hasText: 'Saved to config.yaml.' }).count()).resolves.toBe(
      0,
    );
  });

  it('morning briefing: set in Settings, written to config.yaml; a custom list of days is kept, then off', async () => {
    const page = await signedIn();
    await go(page, 'Settings');
    const config = () => readFileSync(join(home, 'config.yaml'), 'utf8');
    const section = page.getByRole('region', { name: 'Morning briefing' });
    const time = section.getByLabel('Briefing time', { exact: true });
    const saveTime = section.getByRole('button', { name: 'Save briefing time' });
    const saved = section.getByRole('status').filter({ hasText: 'Saved to config.yaml.' });
    await time.fill('7:3');
    await saveTime.click();
    const refusal = page.locator('#briefingAt-error');
    await refusal.waitFor();
    expect(await refusal.textContent()).toBe(
      'The briefing time must look like 07:30 (HH:MM, 24-hour time); nothing was saved.',
    );
    expect(config()).not.toMatch(/^briefing:/m);

    await time.fill('06:45');
    await saveTime.click();
    await saved.waitFor();
    await section.getByLabel('Briefing days').selectOption('weekdays');
    await expect.poll(config).toMatch(/^briefing:\n {2}at: "?06:45"?\n {2}days: weekdays$/m);
    await section.scrollIntoViewIfNeeded();
    await screenshot(page, 'first-hour-briefing');

    // A list of days written by hand shows as "Custom" and survives a change of the time.
    writeFileSync(join(home, 'config.yaml'), config().replace('days: weekdays', 'days: [mon, thu] # gym'));
    await page.reload();
    await section.getByLabel('Briefing days').waitFor();
    expect(await section.getByLabel('Briefing days').inputValue()).toBe('custom');
    await section.getByText('config.yaml lists the days (mon, thu)').waitFor();
    await time.fill('07:15');
    await saveTime.click();
    await saved.waitFor();
    expect(config()).toMatch(/^ {2}at: "?07:15"?\n {2}days: \[ ?mon, thu ?\] # gym$/m);

    // Empty turns it off (and no briefing is left to run during the other tests).
    await time.fill('');
    await saveTime.click();
    await saved.waitFor();
    expect(config()).not.toMatch(/^ {2}at: /m);
  });

  it('labels the approval modes as docs/gate.md describes them (auto still asks for danger signatures)', async () => {
    const page = await signedIn();
    await go(page, 'Settings');
    const mode = page.getByLabel('Approval mode');
    await mode.waitFor();
    const options = await mode.locator('option').allTextContents();
    expect(options).toContain('Auto — asks only for danger signatures, taint and rules');
    expect(options.join('\n')).not.toMatch(/never ask/i);
  });

  it('shows no literal backticks: commands in server text render as code', async () => {
    const page = await signedIn();
    for (const label of [
      'Chat',
      'Approvals',
      'Feed',
      'Reminders',
      'Tasks',
      'Memos',
      'Goals',
      'Memory',
      'Settings',
    ]) {
      await go(page, label);
      await page.locator('main .spinner').first().waitFor({ state: 'detached' });
      expect(await visibleText(page), label).not.toContain('`');
    }
    // Settings → MCP servers, with none configured, names the command as code.
    await expect(page.locator('main code', { hasText: 'wren mcp' }).count()).resolves.toBe(1);
  });

  it('a reminder delivered while the app is open badges Feed and says so in a toast; opening Feed clears it', async () => {
    const page = await signedIn();
    const feedLink = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /^Feed/ });
    await expect(feedLink.locator('.nav-count').count()).resolves.toBe(0);
    const created = await api('/api/reminders', {
      method: 'POST',
      body: JSON.stringify({ text: 'drink some water', when: 'in 1s' }),
    });
    expect(created.status).toBe(201);
    await feedLink.locator('.nav-count').waitFor({ timeout: 20_000 });
    expect(await feedLink.textContent()).toMatch(/^Feed1, 1 new$/);
    await page.locator('.toast', { hasText: 'drink some water' }).waitFor();
    await screenshot(page, 'first-hour-feed-badge');
    await go(page, 'Feed');
    await expect(feedLink.locator('.nav-count').count()).resolves.toBe(0);
    await page.locator('main', { hasText: 'drink some water' }).waitFor();
  });

  it('logged no console errors or exceptions (CSP included)', () => {
    expect(problems).toEqual([]);
  });
});
