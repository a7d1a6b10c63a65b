import type { Browser } from 'playwright-core';
import {
  type FakeHandler,
  type FakeLlmServer,
  type RecordedRequest,
  startFakeLlmServer,
} from '../fakes/fake-llm-server.js';
import { launchChromium } from './browser.js';
import { cliEnv, makeHome, type RunningWren, startWren } from './wren-home.js';

/** What the web app's end-to-end tests run against: a fake model, `wren start` with a token, Chromium. */
export interface WebGateway {
  llm: FakeLlmServer;
  home: string;
  wren: RunningWren;
  browser: Browser;
}

/**
 * Starts the fake model (answering with `answer`), a home whose one model is that fake (`modelKeys` are more
 * lines of its entry, e.g. `vision: true`; `config` more lines of config.yaml; exec runs unsandboxed), the real
 * `wren start` with `token`, and Chromium. The caller stops them in its afterAll.
 */
export async function startWebGateway(options: {
  answer: FakeHandler;
  token: string;
  modelKeys?: string[];
  config?: string[];
}): Promise<WebGateway> {
  const llm = await startFakeLlmServer();
  llm.setHandler(options.answer);
  const home = makeHome(
    [
      'models:',
      '  - name: fake',
      '    protocol: openai',
      `    base_url: ${llm.baseUrls.openai}`,
      '    model: fake-model',
      ...(options.modelKeys ?? []).map((line) => `    ${line}`),
      ...(options.config ?? []),
      'tools:',
      '  exec: { sandbox: none }',
      '',
    ].join('\n'),
  );
  // Both at once (each takes a second or more on a busy machine); whichever came up is closed if the other failed.
  const [wren, browser] = await Promise.allSettled([
    startWren(cliEnv(home, { WREN_GATEWAY_TOKEN: options.token })),
    launchChromium(),
  ]);
  if (wren.status === 'rejected' || browser.status === 'rejected') {
    if (wren.status === 'fulfilled') await wren.value.stop();
    if (browser.status === 'fulfilled') await browser.value.close();
    throw wren.status === 'rejected' ? wren.reason : (browser as PromiseRejectedResult).reason;
  }
  return { llm, home, wren: wren.value, browser: browser.value };
}

/** True when the newest message of the request is a tool result (the model's step after a tool call). */
export function afterTool(request: RecordedRequest): boolean {
  const messages = request.body?.messages as Array<{ role: string }> | undefined;
  return messages?.at(-1)?.role === 'tool';
}
