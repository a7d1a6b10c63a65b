import { afterEach, describe, expect, it } from 'vitest';
import {
  type FakeCopilotServer,
  type FakeCopilotServerOptions,
  startFakeCopilotServer,
} from '../../test/fakes/fake-copilot-server.js';
import { COPILOT_CLIENT_ID, COPILOT_SCOPE } from './copilot-auth.js';
import {
  type DeviceCode,
  DeviceFlowError,
  type DeviceFlowOptions,
  runDeviceFlow,
} from './run-device-flow.js';

/** A clock that only the flow's sleeps move: every wait is recorded and passes at once. */
function virtualTime(start = 1_700_000_000_000) {
  const state = { time: start, waits: [] as number[] };
  return {
    state,
    now: () => state.time,
    sleep: async (ms: number, signal?: AbortSignal) => {
      if (signal?.aborted) throw signal.reason;
      state.waits.push(ms);
      state.time += ms;
    },
  };
}

let server: FakeCopilotServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function signIn(
  fake: FakeCopilotServerOptions,
  overrides: Partial<DeviceFlowOptions> = {},
  signal?: AbortSignal,
) {
  const clock = virtualTime();
  server = await startFakeCopilotServer({ ...fake, now: clock.now });
  const codes: DeviceCode[] = [];
  const polls: Array<{ answer: string; intervalSeconds: number }> = [];
  const run = runDeviceFlow(
    {
      githubUrl: server.url,
      clientId: COPILOT_CLIENT_ID,
      scope: COPILOT_SCOPE,
      onCode: (code) => codes.push(code),
      onPoll: (poll) => polls.push(poll),
      sleep: clock.sleep,
      now: clock.now,
      ...overrides,
    },
    signal,
  );
  return { run, clock, codes, polls, server };
}

describe('runDeviceFlow', () => {
  it('shows the code, keeps polling while authorisation is pending, and returns the token', async () => {
    const { run, clock, codes, polls, server } = await signIn({
      polls: ['authorization_pending', 'authorization_pending'],
      interval: 5,
    });
    await expect(run).resolves.toBe(server.githubToken);
    expect(codes).toEqual([
      { userCode: 'WREN-1234', verificationUri: `${server.url}/login/device`, expiresInSeconds: 900 },
    ]);
    expect(polls).toEqual([
      { answer: 'authorization_pending', intervalSeconds: 5 },
      { answer: 'authorization_pending', intervalSeconds: 5 },
    ]);
    expect(clock.state.waits).toEqual([5000, 5000, 5000]);
    expect(server.polls.map((poll) => poll.answer)).toEqual([
      'authorization_pending',
      'authorization_pending',
      'success',
    ]);
    // The device-code request is a form asking for JSON, with the client id and scope.
    expect(server.deviceCodeRequests[0]?.form).toEqual({ client_id: COPILOT_CLIENT_ID, scope: 'read:user' });
    expect(server.deviceCodeRequests[0]?.headers.accept).toBe('application/json');
    expect(server.polls[0]?.form.grant_type).toBe('urn:ietf:params:oauth:grant-type:device_code');
  });

  it('adds 5 seconds to the interval at each slow_down, for every later poll', async () => {
    const { run, clock, polls } = await signIn({
      polls: ['slow_down', 'authorization_pending', 'slow_down', 'authorization_pending'],
      interval: 5,
    });
    await run;
    expect(polls.map((poll) => poll.intervalSeconds)).toEqual([10, 10, 15, 15]);
    expect(clock.state.waits).toEqual([5000, 10_000, 10_000, 15_000, 15_000]);
  });

  it('takes the interval a slow_down names when it is longer than interval + 5', async () => {
    const { run, clock } = await signIn({ polls: ['slow_down'], interval: 5, slowDownInterval: 30 });
    await run;
    expect(clock.state.waits).toEqual([5000, 30_000]);
  });

  it('waits 5 seconds between polls when the server names no interval (RFC 8628)', async () => {
    const { run, clock } = await signIn({ polls: ['authorization_pending'], interval: null });
    await run;
    expect(clock.state.waits).toEqual([5000, 5000]);
  });

  it('stops with a clear message when GitHub says the code expired', async () => {
    const { run, server } = await signIn({ polls: ['authorization_pending', 'expired_token', 'success'] });
    const error = await run.catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(DeviceFlowError);
    expect((error as DeviceFlowError).code).toBe('expired');
    expect((error as Error).message).toMatch(/code expired.*nothing was saved.*again/);
    expect(server.polls).toHaveLength(2);
  });

  it('stops polling by itself once expires_in has passed', async () => {
    const { run, server } = await signIn({
      polls: Array(20).fill('authorization_pending'),
      interval: 5,
      expiresIn: 12,
    });
    await expect(run).rejects.toMatchObject({ code: 'expired' });
    // Polls at 5 s and 10 s; at 15 s the code is past its 12 s.
    expect(server.polls).toHaveLength(2);
  });

  it('stops with a clear message when the user denies access', async () => {
    const { run } = await signIn({ polls: ['authorization_pending', 'access_denied'] });
    const error = await run.catch((thrown: unknown) => thrown);
    expect((error as DeviceFlowError).code).toBe('denied');
    expect((error as Error).message).toMatch(/cancelled on GitHub \(access denied\); nothing was saved/);
  });

  it('names the client id GitHub refused', async () => {
    const { run, server } = await signIn({}, { clientId: 'Iv1.not-copilot' });
    const error = await run.catch((thrown: unknown) => thrown);
    expect((error as DeviceFlowError).code).toBe('refused');
    expect((error as Error).message).toContain('incorrect_client_credentials');
    expect((error as Error).message).toContain('Iv1.not-copilot');
    expect((error as Error).message).toContain('WREN_COPILOT_CLIENT_ID');
    expect(server.polls).toHaveLength(0);
  });

  it('reports an unreachable GitHub without hanging', async () => {
    const closed = await startFakeCopilotServer();
    const url = closed.url;
    await closed.close();
    const clock = virtualTime();
    const run = runDeviceFlow({
      githubUrl: url,
      clientId: COPILOT_CLIENT_ID,
      scope: COPILOT_SCOPE,
      onCode: () => {},
      sleep: clock.sleep,
      now: clock.now,
    });
    await expect(run).rejects.toMatchObject({
      code: 'unreachable',
      message: expect.stringMatching(/Could not reach GitHub at .*ECONNREFUSED/),
    });
  });

  it('keeps polling through a network blip, and gives up after three failures in a row', async () => {
    const clock = virtualTime();
    const gone = await startFakeCopilotServer({ interval: 2 });
    const run = runDeviceFlow({
      githubUrl: gone.url,
      clientId: COPILOT_CLIENT_ID,
      scope: COPILOT_SCOPE,
      onCode: () => void gone.close(),
      sleep: clock.sleep,
      now: clock.now,
    });
    await expect(run).rejects.toMatchObject({ code: 'unreachable' });
    expect(clock.state.waits).toEqual([2000, 2000, 2000]);
  });

  it('refuses an answer that is not a device code (wrong address)', async () => {
    const clock = virtualTime();
    server = await startFakeCopilotServer();
    const run = runDeviceFlow({
      githubUrl: `${server.url}/elsewhere`,
      clientId: COPILOT_CLIENT_ID,
      scope: COPILOT_SCOPE,
      onCode: () => {},
      sleep: clock.sleep,
      now: clock.now,
    });
    await expect(run).rejects.toMatchObject({
      code: 'refused',
      message: expect.stringContaining('Not Found'),
    });
  });

  it('ends with the signal when the caller aborts while waiting', async () => {
    server = await startFakeCopilotServer({ polls: Array(5).fill('authorization_pending') });
    const controller = new AbortController();
    const run = runDeviceFlow(
      {
        githubUrl: server.url,
        clientId: COPILOT_CLIENT_ID,
        scope: COPILOT_SCOPE,
        onCode: () => controller.abort(new Error('user pressed Ctrl+C')),
      },
      controller.signal,
    );
    await expect(run).rejects.toThrow('user pressed Ctrl+C');
    expect(server.polls).toHaveLength(0);
  });
});
