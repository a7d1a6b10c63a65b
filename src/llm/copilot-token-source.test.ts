import { afterEach, describe, expect, it } from 'vitest';
import {
  type FakeCopilotServer,
  type FakeCopilotServerOptions,
  startFakeCopilotServer,
} from '../../test/fakes/fake-copilot-server.js';
import { COPILOT_EDITOR_HEADERS } from './copilot-auth.js';
import {
  CopilotTokenError,
  CopilotTokenSource,
  type CopilotTokenSourceOptions,
} from './copilot-token-source.js';

let server: FakeCopilotServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A source against a fresh fake, both on one hand-moved clock. */
async function setup(
  fake: FakeCopilotServerOptions = {},
  overrides: Partial<CopilotTokenSourceOptions> = {},
) {
  const clock = { time: 1_700_000_000_000 };
  const now = () => clock.time;
  server = await startFakeCopilotServer({ ...fake, now });
  const events: Array<{ token: string; retired?: string }> = [];
  const source = new CopilotTokenSource({
    githubToken: server.githubToken,
    tokenUrl: server.tokenUrl,
    headers: COPILOT_EDITOR_HEADERS,
    now,
    onToken: (event) => events.push(event),
    ...overrides,
  });
  return { source, clock, events, server };
}

describe('CopilotTokenSource', () => {
  it('exchanges the GitHub token (Authorization: token …, editor headers) for an API token and its API base', async () => {
    const { source, server } = await setup();
    const token = await source.get();
    expect(token.token).toBe(server.apiTokens[0]);
    expect(token.apiBase).toBe(server.apiUrl);
    const sent = server.exchanges[0]!.headers;
    expect(sent.authorization).toBe(`token ${server.githubToken}`);
    expect(sent['editor-version']).toBe(COPILOT_EDITOR_HEADERS['Editor-Version']);
    expect(sent['editor-plugin-version']).toBe(COPILOT_EDITOR_HEADERS['Editor-Plugin-Version']);
    expect(sent['user-agent']).toBe(COPILOT_EDITOR_HEADERS['User-Agent']);
  });

  it('keeps the token in memory until refresh_in has passed, then exchanges again', async () => {
    const { source, clock, server } = await setup({ tokenLifetimeSeconds: 1800, refreshInSeconds: 1500 });
    const first = await source.get();
    clock.time += 1_499_000;
    expect(await source.get()).toBe(first);
    expect(server.exchanges).toHaveLength(1);
    clock.time += 1_000;
    const second = await source.get();
    expect(second.token).not.toBe(first.token);
    expect(server.exchanges).toHaveLength(2);
  });

  it('refreshes a minute before expires_at when that comes before refresh_in', async () => {
    const { source, clock, server } = await setup({ tokenLifetimeSeconds: 600, refreshInSeconds: 3600 });
    await source.get();
    clock.time += 539_000;
    await source.get();
    expect(server.exchanges).toHaveLength(1);
    clock.time += 1_000;
    await source.get();
    expect(server.exchanges).toHaveLength(2);
  });

  it('uses a token once even when the exchange says it is already due (no exchange loop on clock skew)', async () => {
    const { source, server } = await setup({ tokenLifetimeSeconds: 30, refreshInSeconds: 0 });
    const token = await source.get();
    expect(token.token).toBe(server.apiTokens[0]);
    await source.get();
    expect(server.exchanges).toHaveLength(2);
  });

  it('shares one exchange among concurrent callers', async () => {
    const { source, server } = await setup();
    const tokens = await Promise.all([source.get(), source.get(), source.get()]);
    expect(new Set(tokens.map((token) => token.token)).size).toBe(1);
    expect(server.exchanges).toHaveLength(1);
  });

  it('exchanges again after invalidate, and ignores a stale invalidate', async () => {
    const { source, server } = await setup();
    const first = await source.get();
    source.invalidate(first.token);
    const second = await source.get();
    expect(second.token).not.toBe(first.token);
    source.invalidate(first.token);
    expect((await source.get()).token).toBe(second.token);
    expect(server.exchanges).toHaveLength(2);
  });

  it('tells each new token and retires the one two generations old', async () => {
    const { source, events, server } = await setup();
    for (let i = 0; i < 3; i++) source.invalidate((await source.get()).token);
    expect(events).toEqual([
      { token: server.apiTokens[0] },
      { token: server.apiTokens[1] },
      { token: server.apiTokens[2], retired: server.apiTokens[0] },
    ]);
    expect(source.live()).toEqual([server.apiTokens[1], server.apiTokens[2]]);
  });

  it('says to sign in again when GitHub refuses the GitHub token (401), without echoing it', async () => {
    const { source } = await setup({}, { githubToken: 'gho_revokedTokenXYZ123456' });
    const error = (await source.get().catch((thrown: unknown) => thrown)) as CopilotTokenError;
    expect(error).toBeInstanceOf(CopilotTokenError);
    expect(error.status).toBe(401);
    expect(error.message).toMatch(/HTTP 401: Bad credentials.*wren models login copilot/);
    expect(error.message).not.toContain('gho_revokedTokenXYZ123456');
  });

  it('says the account has no Copilot when the exchange answers 403', async () => {
    const { source } = await setup({ copilotAccess: false });
    await expect(source.get()).rejects.toMatchObject({
      status: 403,
      message: expect.stringMatching(/no Copilot API token .*HTTP 403.*subscription/),
    });
  });

  it('reports an unreachable exchange with status -1', async () => {
    const closed = await startFakeCopilotServer();
    const source = new CopilotTokenSource({ githubToken: 'gho_x', tokenUrl: closed.tokenUrl });
    await closed.close();
    await expect(source.get()).rejects.toMatchObject({
      status: -1,
      message: expect.stringContaining('Could not reach'),
    });
  });

  it('refuses an answer without a token', async () => {
    const { source } = await setup({ exchangeWithoutToken: true });
    await expect(source.get()).rejects.toMatchObject({
      status: 0,
      message: expect.stringContaining('answered without a token'),
    });
  });

  it('leaves the API base unset when the exchange names none', async () => {
    const { source } = await setup({ omitApiEndpoint: true });
    expect((await source.get()).apiBase).toBeUndefined();
  });

  it("stops only the aborted caller's wait", async () => {
    const { source, server } = await setup();
    const controller = new AbortController();
    const aborted = source.get(controller.signal);
    const other = source.get();
    controller.abort(new Error('caller gave up'));
    await expect(aborted).rejects.toThrow('caller gave up');
    expect((await other).token).toBe(server.apiTokens[0]);
  });
});
