import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/create-app.js';
import {
  type FakeCopilotServer,
  type FakeCopilotServerOptions,
  startFakeCopilotServer,
} from '../fakes/fake-copilot-server.js';
import { cliEnv, makeHome, runCli, waitFor } from '../support/wren-home.js';

let copilot: FakeCopilotServer | undefined;
afterEach(async () => {
  await copilot?.close();
  copilot = undefined;
});

async function fake(options: FakeCopilotServerOptions = {}): Promise<FakeCopilotServer> {
  copilot = await startFakeCopilotServer({ interval: 0, ...options });
  return copilot;
}

const copilotModel = (apiUrl: string) =>
  `models:\n  - name: copilot\n    provider: copilot\n    model: gpt-4.1\n    base_url: ${apiUrl}\n`;

/** Every secret the fake handed out: the GitHub token and each Copilot API token. */
const secretsOf = (server: FakeCopilotServer) => [server.githubToken, ...server.apiTokens];

function expectNoSecret(text: string, server: FakeCopilotServer): void {
  for (const secret of secretsOf(server)) expect(text).not.toContain(secret);
}

describe('wren models login copilot', () => {
  it('signs in with the device flow, saves the GitHub token to .env (0600) and never prints it; models test passes', async () => {
    const server = await fake({ polls: ['authorization_pending'] });
    const home = makeHome('# my settings\n');
    const login = await runCli(
      ['models', 'login', 'copilot', '--github-url', server.url, '--token-url', server.tokenUrl],
      cliEnv(home),
    );
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    expect(login.stdout).toContain(`open ${server.url}/login/device and enter the code WREN-1234`);
    expect(login.stdout).toContain('Saved the GitHub token to');
    expect(login.stdout).toContain('provider: copilot');
    expectNoSecret(login.stdout + login.stderr, server);
    expect(server.polls.map((poll) => poll.answer)).toEqual(['authorization_pending', 'success']);
    // The sign-in was checked against the exchange before anything was saved.
    expect(server.exchanges.map((exchange) => exchange.status)).toEqual([200]);
    const envFile = join(home, '.env');
    expect(readFileSync(envFile, 'utf8')).toBe(`WREN_COPILOT_GITHUB_TOKEN=${server.githubToken}\n`);
    expect(statSync(envFile).mode & 0o777).toBe(0o600);

    writeFileSync(join(home, 'config.yaml'), copilotModel(server.apiUrl));
    const env = cliEnv(home, { WREN_COPILOT_TOKEN_URL: server.tokenUrl });
    const test = await runCli(['models', 'test'], env);
    expect(test.stdout).toMatch(/✓ copilot {2}\d+ ms {2}\(gpt-4\.1\)/);
    expect(test.code).toBe(0);
    expect(server.chats.at(-1)?.token).toBe(server.apiTokens.at(-1));
    expectNoSecret(test.stdout + test.stderr, server);
  });

  it('takes its addresses and client id from the environment, and saves nothing when access is denied', async () => {
    const server = await fake({ polls: ['authorization_pending', 'access_denied'], clientId: 'Iv1.custom' });
    const home = makeHome('');
    const env = cliEnv(home, {
      WREN_COPILOT_GITHUB_URL: server.url,
      WREN_COPILOT_TOKEN_URL: server.tokenUrl,
      WREN_COPILOT_CLIENT_ID: 'Iv1.custom',
    });
    const result = await runCli(['models', 'login', 'copilot'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^wren: The sign-in was cancelled on GitHub \(access denied\); nothing was saved/,
    );
    expect(server.deviceCodeRequests[0]?.form.client_id).toBe('Iv1.custom');
    expect(existsSync(join(home, '.env'))).toBe(false);
  });

  it('saves nothing when the account has no Copilot, and says so', async () => {
    const server = await fake({ copilotAccess: false });
    const home = makeHome('');
    const result = await runCli(
      ['models', 'login', 'copilot', '--github-url', server.url, '--token-url', server.tokenUrl],
      cliEnv(home),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no Copilot API token for this account \(HTTP 403.*subscription/);
    expectNoSecret(result.stdout + result.stderr, server);
    expect(existsSync(join(home, '.env'))).toBe(false);
  });

  it('refuses providers that take a key and bad addresses, and documents itself in --help', async () => {
    const home = makeHome('');
    const other = await runCli(['models', 'login', 'openai'], cliEnv(home));
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('only copilot signs in');
    const badUrl = await runCli(['models', 'login', 'copilot', '--github-url', 'github.com'], cliEnv(home));
    expect(badUrl.code).toBe(1);
    expect(badUrl.stderr).toContain('--github-url must be an http(s) URL');
    const help = await runCli(['models', 'login', '--help'], cliEnv(home));
    expect(help.stdout).toContain('--client-id <id>');
    expect(help.stdout).toContain('--token-url <url>');
    expect(help.stdout).toContain('WREN_COPILOT_GITHUB_TOKEN');
    const list = await runCli(['models'], cliEnv(home));
    expect(list.stdout).toMatch(/copilot +GitHub Copilot — sign in: wren models login copilot/);
  });
});

describe('Copilot tokens', () => {
  it('never reach logs, status output, prompts or the audit, and a refresh mid-conversation is invisible', async () => {
    const server = await fake();
    const home = makeHome(copilotModel(server.apiUrl), `WREN_COPILOT_GITHUB_TOKEN=${server.githubToken}\n`);
    const app = await createApp({
      home,
      env: { PATH: process.env['PATH'], WREN_COPILOT_TOKEN_URL: server.tokenUrl },
      probeLocalModels: false,
    });
    try {
      let calls = 0;
      server.llm.setHandler(() => {
        calls++;
        if (calls > 1) return { text: `answer ${calls}` };
        // A model (or a page it read) that leaks: the tokens in a file it reads and in a call's arguments.
        const apiToken = server.apiTokens.at(-1)!;
        writeFileSync(
          join(app.config().workspace, 'leak.txt'),
          `api=${apiToken} github=${server.githubToken}`,
        );
        return {
          toolCalls: [
            { name: 'read_file', arguments: { path: 'leak.txt' } },
            { name: 'read_file', arguments: { path: `notes-${apiToken}.txt` } },
          ],
        };
      });
      const turn = (id: string, text: string) =>
        app.bus.request({ id, channel: 'cli', senderId: 'owner', fromOwner: true, chatId: 'c', text });
      expect((await turn('1', 'read leak.txt')).text).toBe('answer 2');
      server.revokeApiTokens();
      expect((await turn('2', 'and now?')).text).toBe('answer 3');
      expect(server.exchanges).toHaveLength(2);
      expect(server.chats.map((chat) => chat.status)).toEqual([200, 200, 401, 200]);

      // What Wren put in the prompts (the model's own tool calls go back to it as it wrote them).
      const prompts = JSON.stringify(
        server.llm.requests.flatMap((request) =>
          (request.body.messages as Array<{ role: string }>).filter(
            (message) => message.role !== 'assistant',
          ),
        ),
      );
      expectNoSecret(prompts, server);
      expect(prompts).toContain('api=[redacted] github=[redacted]');

      const audit = JSON.stringify(app.gate.audit.list());
      expect(audit).toContain('notes-[redacted].txt');
      expectNoSecret(audit, server);

      expectNoSecret(JSON.stringify(app.status('test')), server);

      // Whatever reaches the log is redacted: both live API tokens and the GitHub token.
      app.logger.warn({ tokens: secretsOf(server) }, `tokens: ${secretsOf(server).join(' ')}`);
      const logFile = join(home, 'logs', 'wren.log');
      await waitFor(() => readFileSync(logFile, 'utf8').includes('tokens: '));
      const log = readFileSync(logFile, 'utf8');
      expect(log).toContain('tokens: [redacted] [redacted] [redacted]');
      expectNoSecret(log, server);
    } finally {
      await app.close();
    }
  });

  it('stay out of `wren chat`, `wren status`, `wren audit` and the log file of a separate process', async () => {
    const server = await fake();
    const home = makeHome(copilotModel(server.apiUrl), `WREN_COPILOT_GITHUB_TOKEN=${server.githubToken}\n`);
    const env = cliEnv(home, { WREN_COPILOT_TOKEN_URL: server.tokenUrl });
    server.llm.script({ text: 'hello from copilot' });
    const chat = await runCli(['chat', '-m', 'hi', '--json'], env);
    expect(chat.code).toBe(0);
    expect(JSON.parse(chat.stdout).reply).toBe('hello from copilot');
    const status = await runCli(['status', '--json'], env);
    const text = await runCli(['status'], env);
    const audit = await runCli(['audit'], env);
    expect(status.code).toBe(0);
    expect(server.apiTokens.length).toBeGreaterThan(0);
    const log = readFileSync(join(home, 'logs', 'wren.log'), 'utf8');
    for (const output of [chat, status, text, audit]) expectNoSecret(output.stdout + output.stderr, server);
    expectNoSecret(log, server);
  });
});
