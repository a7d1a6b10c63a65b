import type { Browser, BrowserContext, BrowserContextOptions, Dialog, Page } from 'playwright-core';
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
  /**
   * A new document loaded at `options.at`, its console watched: in the file's signed-in tab (plain signed-in
   * pages), else in a page of a context of its own (signed out, or other context options).
   */
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
 * Ends the document a page shows by loading `about:blank`, leaving it as `close()` would: a `beforeunload`
 * prompt (the memory editor's guard for unsaved text can ask one) is accepted, where Playwright would dismiss
 * it and keep the page.
 */
async function unload(page: Page): Promise<void> {
  const leave = (dialog: Dialog) => {
    if (dialog.type() === 'beforeunload') void dialog.accept();
  };
  page.on('dialog', leave);
  try {
    await page.goto('about:blank');
  } finally {
    page.off('dialog', leave);
  }
}

/**
 * Gives each test of a browser file its own pages over the browser and gateway the file shares, so any test
 * runs alone (`-t`) or in any order. Signing in happens once per file, through the API, and later contexts
 * start from its cookie and storage; plain signed-in pages load in one tab of that context (see `tab`), since
 * a page's renderer costs more to start than the app to load.
 * Registers an `afterEach` that closes the test's contexts (unloads the tab) and then fails the test if any
 * of its pages logged a console error or threw an uncaught exception (a CSP violation shows up as one), other
 * than the `expectedErrors` — messages the browser logs by itself for an expected outcome, such as a 401.
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
  /**
   * The tab of the signed-in context that plain signed-in tests load the app in, one after another. Each
   * test gets a new document in it (loaded from scratch: its scripts, state and socket are new); between
   * tests it shows `about:blank`, which ends the last test's document. Cheaper than a new page per test
   * (starting a page's renderer takes a few hundred milliseconds), and the app keeps nothing per tab: it
   * uses no sessionStorage and no history state.
   */
  let tab: Page | undefined;
  /** Whether the running test loaded the app in {@link tab}. */
  let inTab = false;

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
   * Signs in once per file the way the sign-in screen does — `POST /api/session` with the token, which sets
   * the session cookie in the context, and the answer's key kept where the app keeps it (`wren.sessionKey`,
   * see web/src/session-key.ts) — without loading a page for it; each file's own sign-in test goes through
   * the screen. The context stays open for the file (plain signed-in tests open their pages in it) and its
   * state seeds the contexts of tests that need other options.
   */
  async function signIn(): Promise<{ context: BrowserContext; state: StorageState }> {
    const context = await newContext({}, false);
    const url = setup.url();
    const response = await context.request.post(`${url}/api/session`, {
      data: { token: setup.token },
      headers: { origin: url },
    });
    if (!response.ok()) throw new Error(`POST /api/session: ${response.status()} ${await response.text()}`);
    const { key } = (await response.json()) as { key: string };
    const { cookies } = await context.storageState();
    const state: StorageState = {
      cookies,
      origins: [{ origin: url, localStorage: [{ name: 'wren.sessionKey', value: key }] }],
    };
    await restore(context, state);
    return { context, state };
  }

  afterEach(async () => {
    const closing = { contexts, pages };
    contexts = [];
    pages = [];
    const used = inTab ? tab : undefined;
    inTab = false;
    // Closed (the tab: unloaded) first, so every message the pages logged has arrived before the check.
    await Promise.all([
      ...[...closing.pages, ...closing.contexts].map((item) => item.close()),
      ...(used && !used.isClosed() ? [unload(used)] : []),
    ]);
    const logged = problems;
    problems = [];
    expect(logged, 'console errors and uncaught exceptions of this test’s pages').toEqual([]);
  });

  return {
    async open(options = {}) {
      let context: BrowserContext;
      let page: Page | undefined;
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
        } else {
          context = session.context;
          // A second page of the same test is a page of its own, so the first stays open; a tab that a test
          // closed, or that crashed, is replaced.
          if (!inTab) {
            if (!tab || tab.isClosed()) tab = await context.newPage();
            page = tab;
            inTab = true;
          }
        }
      }
      if (!page) {
        page = await context.newPage();
        pages.push(page);
      }
      await page.goto(`${setup.url()}/${options.at ?? ''}`);
      return page;
    },
  };
}
