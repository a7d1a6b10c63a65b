import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's Chromium (installed by .ci/run); a test never downloads a browser. */
export const CHROMIUM = process.env['WREN_CHROMIUM'] ?? '/usr/bin/chromium';

/** Where screenshots go: kept as CI artifacts, ignored by git. */
export const RESULTS = resolve('test-results');

/**
 * Launches headless Chromium (Playwright gives it a fresh temporary profile) with the flags that keep it off
 * the network: no background networking, no component updates, no sync, no QUIC — the tests talk to 127.0.0.1
 * only.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

/** Saves a full-page screenshot as test-results/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(RESULTS, { recursive: true });
  const path = join(RESULTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
