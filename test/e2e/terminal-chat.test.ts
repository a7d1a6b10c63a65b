import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { runInPty } from '../support/pty-session.js';
import { CLI, cliEnv, makeHome } from '../support/wren-home.js';

let llm: FakeLlmServer;
beforeAll(async () => {
  llm = await startFakeLlmServer();
});
afterAll(() => llm.close());

const config = () =>
  `models:\n  - name: main\n    protocol: openai\n    base_url: ${llm.baseUrls.openai}\n    model: fake-model\n`;
// `exec`: the pty's shell (`stty …; node …`, dash) must not stay between the pty and Wren. A non-interactive
// dash that waits for its child dies of a Ctrl+C's SIGINT itself (exit 130), even when Wren exits 0: that was
// the flake under load, when the second Ctrl+C arrived while Wren was still closing.
const chat = (home: string, steps: Array<[RegExp, string]>) =>
  runInPty(`${process.execPath} ${CLI} chat`, cliEnv(home), steps);

describe('wren chat in a terminal', () => {
  it('streams a reply, shows tool progress, /stop cancels a slow reply, /new starts over, Ctrl+C twice leaves', async () => {
    const home = makeHome(config());
    llm.script(
      { toolCalls: [{ name: 'list_dir', arguments: {} }] },
      { text: 'Your workspace has SOUL.md.' },
      { chunks: Array.from({ length: 40 }, (_, i) => `w${i} `), chunkDelayMs: 250 },
    );
    const result = await chat(home, [
      [/you ›/, 'what is in my workspace?\r'],
      [/Your workspace has SOUL\.md\.[\s\S]*you ›/, 'tell me a very long story\r'],
      [/w1 /, '/stop\r'],
      [/you ›/, '/new\r'],
      // The first Ctrl+C at the idle prompt closes the chat; the second comes while Wren closes (it says so)
      // or after: either way it leaves with 0, never killed by the signal (130).
      [/Started a new session[\s\S]*you ›/, '\u0003'],
      [/Closing Wren/, '\u0003'],
    ]);
    expect(result.screen).toMatch(/calling list_dir\(\)/);
    expect(result.screen).toMatch(/Stopping the running reply/);
    expect(result.screen).not.toMatch(/w39/);
    expect(result.screen).toMatch(/Closing Wren… \(Ctrl\+C again leaves at once\)/);
    expect(result.code).toBe(0);
    const last = llm.requests.at(-1)!;
    expect(last.lastUserText).toMatch(/tell me a very long story/);
  });
});
