import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeLlmServer, RecordedRequest } from '../fakes/fake-llm-server.js';
import { screenshot } from '../support/browser.js';
import { afterTool, startWebGateway } from '../support/web-gateway.js';
import { type RunningWren, waitFor } from '../support/wren-home.js';

/**
 * Web turns outlive the page: a reloaded or closed tab only stops watching a turn, which runs on in the
 * gateway; opening the conversation again picks it up (the streamed text, tool calls and the approval card
 * so far), and an API client that opts in (`keepRunning`) gets the same. Each test signs in on its own page,
 * so any one runs alone with `-t`.
 */

const TOKEN = 'web-turn-e2e-token-0123456789';
let llm: FakeLlmServer;
let wren: RunningWren;
let home: string;
let browser: Browser;
let context: BrowserContext;

/** The model's second step of a "two parts" turn waits here until the test releases it. */
let held: { promise: Promise<void>; release: () => void } = hold();
function hold() {
  let release = () => {};
  const promise = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { promise, release };
}

/** Requests of the held second step received so far (to know the turn is waiting there). */
let secondSteps = 0;

async function answer(request: RecordedRequest) {
  const text = request.lastUserText;
  if (text.includes('write the reload marker')) {
    return afterTool(request)
      ? { text: 'The reload marker is written.' }
      : { toolCalls: [{ name: 'exec', arguments: { command: 'echo reload-approved > reload.txt' } }] };
  }
  if (text.includes('in two parts')) {
    if (!afterTool(request)) {
      return {
        chunks: ['Part one ', 'of the answer.'],
        toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }],
      };
    }
    secondSteps++;
    await held.promise;
    return { chunks: ['Part two, ', 'the end.'] };
  }
  return { text: 'ok' };
}

/** Console errors and uncaught exceptions of the pages (each test expects none of its own). */
const problems: string[] = [];

async function signedInPage(): Promise<Page> {
  const page = await context.newPage();
  page.on('console', (message) => {
    // The 401 of "not signed in yet" on a page's first call is expected.
    const expected = /Failed to load resource: the server responded with a status of 401/;
    if (message.type() === 'error' && !expected.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(wren.url);
  const message = page.getByLabel('Message', { exact: true });
  const token = page.getByLabel('Gateway token');
  await Promise.race([message.waitFor(), token.waitFor()]);
  if (await token.isVisible()) {
    await token.fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }
  await message.waitFor();
  return page;
}

async function send(page: Page, text: string): Promise<void> {
  const composer = page.getByLabel('Message', { exact: true });
  await composer.fill(text);
  await composer.press('Enter');
}

/** The session id of the conversation the page shows (`#/chat/<id>` once the server named it). */
async function sessionOf(page: Page): Promise<string> {
  await waitFor(() => /#\/chat\/./.test(page.url()));
  return decodeURIComponent(page.url().split('#/chat/')[1]!);
}

async function expectNoFailureShown(page: Page): Promise<void> {
  expect(problems).toEqual([]);
  await expect(page.locator('main .tool-failed').count()).resolves.toBe(0);
  await expect(page.locator('main .msg-error').count()).resolves.toBe(0);
}

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${wren.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...init.headers },
  });

async function turnState(session: string): Promise<string | undefined> {
  const body = (await (await api(`/api/sessions/${session}/turn`)).json()) as {
    turn: { state: string } | null;
  };
  return body.turn?.state;
}

beforeAll(async () => {
  ({ llm, home, wren, browser } = await startWebGateway({ answer, token: TOKEN }));
  context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
}, 60_000);

afterAll(async () => {
  held.release();
  await browser?.close();
  await wren?.stop();
  await llm?.close();
});

describe('web turns outlive the page', { timeout: 60_000 }, () => {
  it('a reload keeps a turn waiting for approval: the card is back, and approving it finishes the turn', async () => {
    const page = await signedInPage();
    await send(page, 'please write the reload marker');
    const card = page.locator('main').getByRole('article', { name: 'Approval: exec' });
    await card.waitFor({ timeout: 15_000 });
    await sessionOf(page);
    await page.reload();
    await page.getByLabel('Message', { exact: true }).waitFor();
    // Re-attached: the turn is live again (Stop shows), its pending call and the approval card are back.
    await page.getByRole('button', { name: 'Stop' }).waitFor();
    await card.waitFor();
    await page.locator('main .tool-running', { hasText: 'exec' }).waitFor();
    await screenshot(page, 'turn-reloaded-approval');
    expect(existsSync(join(home, 'workspace', 'reload.txt'))).toBe(false);
    await card.getByRole('button', { name: 'Once' }).click();
    await page.getByText('The reload marker is written.').waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'detached' });
    expect(readFileSync(join(home, 'workspace', 'reload.txt'), 'utf8')).toBe('reload-approved\n');
    await expectNoFailureShown(page);
    // The user's message is shown once, not once from the store and once from the resumed turn.
    await expect(
      page.getByRole('log', { name: 'Messages' }).getByText('please write the reload marker').count(),
    ).resolves.toBe(1);
    await page.close();
  });

  it('closing the tab mid-answer loses nothing: a new page shows the answer so far, then all of it', async () => {
    held = hold();
    const before = secondSteps;
    const page = await signedInPage();
    await send(page, 'answer in two parts');
    await page.getByText('Part one of the answer.').waitFor({ timeout: 15_000 });
    const session = await sessionOf(page);
    await waitFor(() => secondSteps > before);
    await page.close();
    // The model is still held mid-turn, and the gateway has not given up on it.
    expect(await turnState(session)).toBe('running');
    const again = await signedInPage();
    await again.goto(`${wren.url}/#/chat/${encodeURIComponent(session)}`);
    await again.getByText('Part one of the answer.').waitFor();
    await again.getByRole('button', { name: 'Stop' }).waitFor();
    held.release();
    await again.getByText('Part two, the end.').waitFor({ timeout: 15_000 });
    await again.getByRole('button', { name: 'Stop' }).waitFor({ state: 'detached' });
    await expect(
      again.getByRole('log', { name: 'Messages' }).getByText('Part one of the answer.').count(),
    ).resolves.toBe(1);
    await expectNoFailureShown(again);
    await screenshot(again, 'turn-reopened');
    await again.close();
  });

  it('Stop still stops a turn, on the server too', async () => {
    held = hold();
    const before = secondSteps;
    const page = await signedInPage();
    await send(page, 'answer in two parts, then stop');
    await page.getByText('Part one of the answer.').waitFor({ timeout: 15_000 });
    const session = await sessionOf(page);
    await waitFor(() => secondSteps > before);
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.locator('main .notice', { hasText: 'Stopped.' }).waitFor();
    await waitFor(async () => (await turnState(session)) === 'stopped');
    held.release();
    await page.close();
  });

  it('Stop on a turn picked up after a reload stops it too', async () => {
    held = hold();
    const before = secondSteps;
    const page = await signedInPage();
    await send(page, 'answer in two parts, reload, then stop');
    await page.getByText('Part one of the answer.').waitFor({ timeout: 15_000 });
    const session = await sessionOf(page);
    await waitFor(() => secondSteps > before);
    await page.reload();
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.locator('main .notice', { hasText: 'Stopped.' }).waitFor();
    await waitFor(async () => (await turnState(session)) === 'stopped');
    held.release();
    await expectNoFailureShown(page);
    await page.close();
  });

  it('the API: without keepRunning a client that goes away cancels; with it the turn finishes and is readable', async () => {
    const post = (body: Record<string, unknown>, signal: AbortSignal) =>
      api('/api/chat', {
        method: 'POST',
        headers: { accept: 'text/event-stream' },
        body: JSON.stringify(body),
        signal,
      });
    const readUntil = async (response: Response, marker: string) => {
      const reader = response.body!.getReader();
      let text = '';
      while (!text.includes(marker)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      return text;
    };
    const messagesOf = async (session: string) =>
      JSON.stringify(await (await api(`/api/sessions/${session}/messages`)).json());

    for (const keepRunning of [false, true]) {
      held = hold();
      const before = secondSteps;
      const session = `api-keep-${keepRunning}`;
      const client = new AbortController();
      const response = await post({ message: 'answer in two parts', session, keepRunning }, client.signal);
      expect(await readUntil(response, 'Part one')).toContain('event: delta');
      await waitFor(() => secondSteps > before);
      client.abort();
      if (!keepRunning) {
        await waitFor(async () => (await turnState(session)) === 'stopped');
        held.release();
        // Turns of a session run in order: once a second one is answered, the first has surely ended.
        const next = (await (
          await api('/api/chat', { method: 'POST', body: JSON.stringify({ message: 'and now?', session }) })
        ).json()) as { reply: string };
        expect(next.reply).toBe('ok');
        expect(await messagesOf(session)).not.toContain('Part two');
        continue;
      }
      expect(await turnState(session)).toBe('running');
      held.release();
      await waitFor(async () => (await turnState(session)) === 'done');
      const turn = (await (await api(`/api/sessions/${session}/turn`)).json()) as {
        turn: { result: { text: string } };
      };
      expect(turn.turn.result.text).toBe('Part two, the end.');
      expect(await messagesOf(session)).toContain('Part two, the end.');
    }
  });
});
