import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeLlmServer, RecordedRequest } from '../fakes/fake-llm-server.js';
import { screenshot } from '../support/browser.js';
import { startWebGateway } from '../support/web-gateway.js';
import { pagesPerTest } from '../support/web-page.js';
import type { RunningWren } from '../support/wren-home.js';

/**
 * The web app driven by the keyboard alone: after `goto`, every step is a key press (Tab, Shift+Tab,
 * Enter, Escape, typing) — no clicks, no `fill`, no `focus()`. Locators only say where focus should
 * arrive and what should happen. Page-side code is passed to `evaluate` as strings: this project's
 * TypeScript has no DOM types outside web/.
 */

const TOKEN = 'web-keyboard-e2e-token-0123456789';
let llm: FakeLlmServer;
let wren: RunningWren;
let home: string;
let browser: Browser;
/** The page of the running test (each test opens its own). */
let page: Page;
/** Each test's own pages; the browser's log of the 401 of "not signed in yet" is expected. */
const pages = pagesPerTest({
  browser: () => browser,
  url: () => wren.url,
  token: TOKEN,
  expectedErrors: /status of 401/,
});

/** The fake model: a command held for approval for the "keyboard file", else a short streamed answer. */
function answer(request: RecordedRequest) {
  const messages = request.body?.messages as Array<{ role: string }> | undefined;
  if (request.lastUserText.includes('keyboard file')) {
    return messages?.at(-1)?.role === 'tool'
      ? { text: 'The keyboard file is written.' }
      : { toolCalls: [{ name: 'exec', arguments: { command: 'echo keyboard > kb.txt' } }] };
  }
  return { chunks: ['Typed ', 'and sent ', 'with the keyboard.'], chunkDelayMs: 60 };
}

const nav = () => page.getByRole('navigation', { name: 'Main' });
const navLink = (name: string | RegExp) => nav().getByRole('link', { name });
const composer = () => page.getByLabel('Message', { exact: true });

/** What has focus, for failure messages: its tag and label or text. */
function focusedElement(): Promise<string> {
  return page.evaluate<string>(`(() => {
    const element = document.activeElement;
    if (!element || element === document.body) return 'nothing (body)';
    const name = element.getAttribute('aria-label') || element.id || element.textContent || '';
    return element.tagName.toLowerCase() + ' "' + name.trim().slice(0, 60) + '"';
  })()`);
}

async function hasFocus(target: Locator): Promise<boolean> {
  return (await target.and(page.locator(':focus')).count()) === 1;
}

/** Presses `key` until `target` has focus; fails when it is not reached within `limit` presses. */
async function pressUntilFocused(target: Locator, key: 'Tab' | 'Shift+Tab', limit = 60): Promise<void> {
  for (let presses = 0; presses < limit; presses++) {
    if (await hasFocus(target)) return;
    await page.keyboard.press(key);
  }
  if (await hasFocus(target)) return;
  throw new Error(`${limit} × ${key} did not reach the target; focus is on ${await focusedElement()}`);
}

/**
 * Reaches a link of the main navigation from wherever focus is (backwards, or forwards: from the composer,
 * the last stop of the chat, focus wraps round to the top), and follows it with Enter.
 */
async function openPage(label: string, key: 'Tab' | 'Shift+Tab' = 'Shift+Tab'): Promise<void> {
  await pressUntilFocused(navLink(label === 'Approvals' ? /^Approvals/ : label), key);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { level: 1, name: label === 'Chat' ? /^Chat:/ : label }).waitFor();
}

interface Ring {
  outlineStyle: string;
  outlineWidth: string;
  boxShadow: string;
}

/** The computed outline and box shadow of the element `expression` names: a focus indicator shows in one. */
function focusRing(expression: string): Promise<Ring> {
  return page.evaluate<Ring>(`(() => {
    const style = getComputedStyle(${expression});
    return { outlineStyle: style.outlineStyle, outlineWidth: style.outlineWidth, boxShadow: style.boxShadow };
  })()`);
}

const visibleRing = (ring: Ring) =>
  (ring.outlineStyle !== 'none' && ring.outlineWidth !== '0px') || ring.boxShadow !== 'none';

/** Whether focus is inside the element with this id. */
function focusInside(id: string): Promise<boolean> {
  return page.evaluate<boolean>(
    `document.getElementById(${JSON.stringify(id)}).contains(document.activeElement)`,
  );
}

beforeAll(async () => {
  ({ llm, home, wren, browser } = await startWebGateway({ answer, token: TOKEN }));
}, 60_000);

/** A signed-in page of its own at `at` (default: a new chat), once the app shows it. */
async function openSignedIn(at = ''): Promise<void> {
  page = await pages.open({ at });
  await page.getByRole('heading', { level: 1 }).waitFor();
}

afterAll(async () => {
  await browser?.close();
  await wren?.stop();
  await llm?.close();
});

describe('the web app with the keyboard only', { timeout: 40_000 }, () => {
  it('signs in: Tab to the token field, type it, Enter', async () => {
    page = await pages.open({ signedIn: false });
    await page.getByRole('heading', { name: 'Sign in to Wren' }).waitFor();
    await pressUntilFocused(page.getByLabel('Gateway token'), 'Tab', 10);
    await page.keyboard.type(TOKEN);
    await page.keyboard.press('Enter');
    await composer().waitFor();
  });

  it('writes a message over two lines with Shift+Enter and sends it with Enter', async () => {
    await openSignedIn();
    await pressUntilFocused(composer(), 'Tab');
    await page.keyboard.type('first line');
    await page.keyboard.press('Shift+Enter');
    // A send would have emptied the box; Shift+Enter only added a line.
    expect(await composer().inputValue()).toBe('first line\n');
    await page.keyboard.type('second line');
    expect(await composer().inputValue()).toBe('first line\nsecond line');
    expect(llm.requests.some((request) => request.lastUserText.includes('first line'))).toBe(false);

    await page.keyboard.press('Enter');
    await page.getByText('Typed and sent with the keyboard.').waitFor();
    expect(await composer().inputValue()).toBe('');
    expect(llm.requests.at(-1)?.lastUserText).toContain('first line\nsecond line');
    await page.locator('.msg-user .bubble', { hasText: 'first line' }).waitFor();
  });

  it('reaches the main navigation with Tab, shows where focus is, and opens a page with Enter', async () => {
    await openSignedIn();
    const reminders = navLink('Reminders');
    await pressUntilFocused(reminders, 'Tab');
    const ring = await focusRing('document.activeElement');
    expect(visibleRing(ring), `focused nav link: ${JSON.stringify(ring)}`).toBe(true);
    // The ring comes with focus: the same kind of link without focus has none.
    const tasks = await focusRing(`document.querySelector('#sidebar a[href="#/tasks"]')`);
    expect(visibleRing(tasks), `nav link without focus: ${JSON.stringify(tasks)}`).toBe(false);
    await screenshot(page, 'keyboard-focus');

    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Reminders' }).waitFor();
    // Focus moved to the new page, so the next Tab goes into it rather than back to the top.
    await expect.poll(() => focusInside('main'), { message: 'focus in the page' }).toBe(true);
    await page.keyboard.press('Tab');
    expect(await focusInside('main'), `after Tab: ${await focusedElement()}`).toBe(true);
  });

  it('"Skip to content" is the first Tab stop and moves focus to the page without leaving it', async () => {
    await openSignedIn('#/reminders');
    const skip = page.getByText('Skip to content');
    await pressUntilFocused(skip, 'Tab');
    const firstStop = await page.evaluate<boolean>(`(() => {
      const stops = [...document.querySelectorAll('a[href], button, input, select, textarea, [tabindex]')].filter(
        (element) => element.tabIndex >= 0 && !element.disabled && element.checkVisibility({ visibilityProperty: true }),
      );
      return stops[0] === document.activeElement;
    })()`);
    expect(firstStop).toBe(true);
    await page.keyboard.press('Enter');
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('main');
    expect(await page.evaluate<string>('location.hash')).toBe('#/reminders');
    await page.getByRole('heading', { level: 1, name: 'Reminders' }).waitFor();
  });

  it('at phone width opens the menu and the conversation list with the keyboard; Escape closes them', async () => {
    page = await pages.open({ context: { viewport: { width: 390, height: 844 } } });
    await page.getByRole('heading', { level: 1 }).waitFor();
    const menu = page.getByRole('button', { name: 'Menu', exact: true });
    await pressUntilFocused(menu, 'Tab');
    await page.keyboard.press('Enter');
    await expect.poll(() => menu.getAttribute('aria-expanded')).toBe('true');
    await navLink('Reminders').waitFor({ state: 'visible' });
    // Opening put focus in the menu, on the page shown.
    await expect.poll(() => hasFocus(navLink('Chat')), { message: 'focus on the Chat link' }).toBe(true);
    // The page behind the open menu is out of the Tab order.
    for (let presses = 0; presses < 20; presses++) {
      await page.keyboard.press('Tab');
      expect(await focusInside('main'), `Tab ${presses + 1}: ${await focusedElement()}`).toBe(false);
    }
    await page.keyboard.press('Escape');
    await expect.poll(() => menu.getAttribute('aria-expanded')).toBe('false');
    await navLink('Reminders').waitFor({ state: 'hidden' });
    await expect.poll(() => hasFocus(menu), { message: 'focus back on Menu' }).toBe(true);

    const conversations = page.getByRole('button', { name: 'Conversations', exact: true });
    await pressUntilFocused(conversations, 'Tab');
    await page.keyboard.press('Enter');
    await expect.poll(() => conversations.getAttribute('aria-expanded')).toBe('true');
    await expect.poll(() => focusInside('chat-sessions'), { message: 'focus in the list' }).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => conversations.getAttribute('aria-expanded')).toBe('false');
    await expect.poll(() => hasFocus(conversations), { message: 'focus back on Conversations' }).toBe(true);
  });

  it('answers a held command on the Approvals page with Tab and Enter, and the turn finishes', async () => {
    await openSignedIn();
    await pressUntilFocused(composer(), 'Tab');
    await page.keyboard.type('please write the keyboard file');
    await page.keyboard.press('Enter');
    await expect.poll(() => navLink(/^Approvals/).textContent(), { timeout: 15_000 }).toContain('1');
    expect(existsSync(join(home, 'workspace', 'kb.txt'))).toBe(false);

    await openPage('Approvals', 'Tab');
    const card = page.getByRole('article', { name: 'Approval: exec' });
    await card.waitFor();
    await pressUntilFocused(card.getByRole('button', { name: 'Once' }), 'Tab');
    await page.keyboard.press('Enter');
    await card.waitFor({ state: 'detached', timeout: 15_000 });
    // The answered card is gone; focus stays on the page (the list's heading), not lost to the body.
    await expect.poll(() => focusedElement()).toBe('h2 "pending-title"');
    await expect
      .poll(
        () =>
          existsSync(join(home, 'workspace', 'kb.txt'))
            ? readFileSync(join(home, 'workspace', 'kb.txt'), 'utf8')
            : '',
        {
          timeout: 15_000,
        },
      )
      .toBe('keyboard\n');

    await openPage('Chat');
    await page.getByText('The keyboard file is written.').waitFor({ timeout: 15_000 });
  });
});
