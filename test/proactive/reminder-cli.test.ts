import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, makeHome, runCli, startWren, waitFor } from '../support/wren-home.js';

const received: Array<{ key: string; text: string }> = [];
let sink: Server;
let sinkUrl = '';
const TOKEN = 'reminder-cli-token-0123456789';

beforeAll(async () => {
  sink = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      const parsed = JSON.parse(body) as { key: string; text: string };
      received.push({ key: parsed.key, text: parsed.text });
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise((resolve) => sink.close(resolve)));

describe('wren reminder while wren start runs', () => {
  it('adds, lists and cancels from the shell; the running scheduler delivers at once when due', async () => {
    const home = makeHome(`proactive:\n  webhooks:\n    sink: { url: "${sinkUrl}" }\n`);
    const env = cliEnv(home, { WREN_GATEWAY_TOKEN: TOKEN });
    const wren = await startWren(env);
    try {
      const added = await runCli(
        ['reminder', 'add', 'stand up and stretch', '--in', '2s', '--to', 'webhook:sink'],
        env,
      );
      expect(added.stderr).toBe('');
      expect(added.stdout).toMatch(/^Reminder #1: /);
      const later = await runCli(
        ['reminder', 'add', 'never mind', '--every', '0 9 * * *', '--to', 'webhook:sink', '--json'],
        env,
      );
      const laterId = (JSON.parse(later.stdout) as { id: number }).id;
      // --all: on a slow machine the 2 s reminder may already have fired (then it is listed as done).
      const listed = await runCli(['reminder', 'list', '--all'], env);
      expect(listed.stdout).toMatch(/#1 .* → webhook:sink · stand up and stretch/);
      expect(listed.stdout).toMatch(/cron "0 9 \* \* \*"/);
      expect((await runCli(['reminder', 'cancel', String(laterId)], env)).stdout).toBe(
        `Cancelled reminder #${laterId}.\n`,
      );
      await waitFor(() => received.length > 0, 15_000);
      expect(received).toEqual([
        { key: expect.stringMatching(/^reminder:1:/), text: 'stand up and stretch' },
      ]);
      // The feed over the API shows it too.
      const feed = (await (
        await fetch(`${wren.url}/api/feed`, { headers: { authorization: `Bearer ${TOKEN}` } })
      ).json()) as {
        feed: Array<{ title: string; text: string }>;
      };
      expect(feed.feed[0]).toMatchObject({ title: 'Reminder', text: 'stand up and stretch' });
    } finally {
      await wren.stop();
    }
  });

  it('says what is wrong with exit code 2', async () => {
    const env = cliEnv(makeHome('{}\n'));
    for (const args of [
      ['reminder', 'add', 'x'],
      ['reminder', 'add', 'x', '--in', '5m', '--at', 'tomorrow'],
      ['reminder', 'add', 'x', '--at', 'yesterday at 9'],
      ['reminder', 'add', 'x', '--in', '5m', '--mode', 'loud'],
      ['reminder', 'cancel', 'abc'],
    ]) {
      const result = await runCli(args, env);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(/^wren: /);
    }
    expect((await runCli(['reminder', 'cancel', '99'], env)).code).toBe(1);
  });
});
