import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterEach, expect } from 'vitest';

type StorageState = Awaited<ReturnType<BrowserContext['storageState']>>;

/** How a test's page starts. */
export interface OpenOptions {
  /** Signed in to the gateway (the default) or at the sign-in screen. */
  signedIn?: boolean;
  /** Where in the app: a hash route such as `#/reminders` (default: the app's start, a new chat). */
  at?: string;
  /**
   * More options of the page's own browser context (viewport, isMobile…), over a 1280 × 860 viewport with
   * service workers blocked: installing one precaches the whole app in every fresh context, which only a test
   * of the service worker needs (`serviceWorkers: 'allow'`).
   */
  context?: BrowserContextOptions;
}

/** Fresh pages for the test that is running; see {@link pagesPerTest}. */
export interface TestPages {
  /** A page in a context of its own, its console watched, loaded at `options.at`. */
  open(options?: OpenOptions): Promise<Page>;
}

/**
 * Puts a signed-in state into a new context: its cookies directly, its origins' localStorage by a script that
 * runs before the app's own on the first load of each page (later loads keep what the app made of it).
 * Cheaper than `newContext({ storageState })`, which opens a page per origin to write the storage.
 */
async function restore(context: BrowserContext, state: StorageState): Promise<void> {
  await context.addCookies(state.cookies);
  await context.addInitScript(
    ({ origins, marker }) => {
      const global = globalThis as unknown as {
        location: { origin: string };
        localStorage: { setItem(name: string, value: string): void };
        sessionStorage: { getItem(name: string): string | null; setItem(name: string, value: string): void };
      };
      const origin = origins.find((item) => item.origin === global.location.origin);
      if (!origin || global.sessionStorage.getItem(marker)) return;
      for (const entry of origin.localStorage) global.localStorage.setItem(entry.name, entry.value);
      global.sessionStorage.setItem(marker, '1');
    },
    { origins: state.origins, marker: 'test.storage-restored' },
  );
}

/**
 * Gives each test of a browser file its own pages over the browser and gateway the file shares, so any test
 * runs alone (`-t`) or in any order. A context costs a few milliseconds; signing in through the sign-in screen
 * costs a page load, so it happens once per file and later contexts start from its cookie and storage.
 * Registers an `afterEach` that closes the test's contexts and then fails the test if any of its pages logged
 * a console error or threw an uncaught exception (a CSP violation shows up as one), other than the
 * `expectedErrors` — messages the browser logs by itself for an expected outcome, such as a 401 response.
 * `setup` is read lazily: the file's `beforeAll` starts the browser and gateway after this is called.
 */
export function pagesPerTest(setup: {
  browser: () => Browser;
  url: () => string;
  token: string;
  expectedErrors: RegExp;
}): TestPages {
  let signedIn: Promise<{ context: BrowserContext; state: StorageState }> | undefined;
  /** What the running test opened: closed after it. */
  let contexts: BrowserContext[] = [];
  let pages: Page[] = [];
  let problems: string[] = [];

  async function newContext(options: BrowserContextOptions, own = true): Promise<BrowserContext> {
    const context = await setup
      .browser()
      .newContext({ viewport: { width: 1280, height: 860 }, serviceWorkers: 'block', ...options });
    if (own) contexts.push(context);
    context.on('console', (message) => {
      if (message.type() === 'error' && !setup.expectedErrors.test(message.text()))
        problems.push(`${message.page()?.url() ?? '(no page)'}: ${message.text()}`);
    });
    context.on('weberror', (error) =>
      problems.push(`${error.page()?.url() ?? '(no page)'}: ${error.error().message}`),
    );
    return context;
  }

  /**
   * Signs in once, through the sign-in screen as a person would. The context stays open for the file (pages
   * of plain signed-in tests open in it) and its state seeds the contexts of tests that need other options.
   */
  async function signIn(): Promise<{ context: BrowserContext; state: StorageState }> {
    const context = await newContext({}, false);
    const page = await context.newPage();
    await page.goto(setup.url());
    await page.getByLabel('Gateway token').fill(setup.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Message', { exact: true }).waitFor();
    const state = await context.storageState();
    await page.close();
    return { context, state };
  }

  afterEach(async () => {
    const closing = { contexts, pages };
    contexts = [];
    pages = [];
    // Closed first, so every message the pages logged has arrived before the check.
    await Promise.all([...closing.pages, ...closing.contexts].map((item) => item.close()));
    const logged = problems;
    problems = [];
    expect(logged, 'console errors and uncaught exceptions of this test’s pages').toEqual([]);
  });

  return {
    async open(options = {}) {
      let context: BrowserContext;
      if (options.signedIn === false) context = await newContext(options.context ?? {});
      else {
        signedIn ??= signIn();
        // A failed sign-in fails this test, and the next test tries again.
        const session = await signedIn.catch((error: unknown) => {
          signedIn = undefined;
          throw error;
        });
        if (options.context) {
          context = await newContext(options.context);
          await restore(context, session.state);
        } else context = session.context;
      }
      const page = await context.newPage();
      pages.push(page);
      await page.goto(`${setup.url()}/${options.at ?? ''}`);
      return page;
    },
  };
}
