/**
 * GitHub's OAuth device flow (RFC 8628): ask for a device code, let the user enter it in a browser, poll for
 * the token. The caller shows the code; this module never prints and never returns more than the token.
 */
import { createDeadline, sleep as defaultSleep } from '../util/create-deadline.js';

/** What the user needs to sign in. */
export interface DeviceCode {
  userCode: string;
  /** Where to enter the code. */
  verificationUri: string;
  /** A link with the code filled in, when the server offers one. */
  verificationUriComplete?: string;
  expiresInSeconds: number;
}

export interface DeviceFlowOptions {
  /** GitHub's address, e.g. `https://github.com`; `/login/device/code` and `/login/oauth/access_token` follow. */
  githubUrl: string;
  clientId: string;
  scope: string;
  /** Called once with the code to show. */
  onCode: (code: DeviceCode) => void;
  /** Called after each poll that did not end the flow, with the answer and the interval now in force. */
  onPoll?: (poll: { answer: 'authorization_pending' | 'slow_down'; intervalSeconds: number }) => void;
  /** Extra headers for GitHub (a User-Agent). */
  headers?: Readonly<Record<string, string>>;
  fetch?: typeof fetch;
  /** Waits between polls; must reject when `signal` aborts. Injected in tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Milliseconds since the epoch; decides when the device code has expired. */
  now?: () => number;
  /** Deadline of each HTTP request. Default 30 s. */
  requestTimeoutMs?: number;
}

/** Why the sign-in ended without a token. */
export type DeviceFlowFailure = 'expired' | 'denied' | 'refused' | 'unreachable';

/** The sign-in failed; the message says why and what to do. Never contains a token or the device code. */
export class DeviceFlowError extends Error {
  override readonly name = 'DeviceFlowError';
  readonly code: DeviceFlowFailure;

  constructor(code: DeviceFlowFailure, message: string) {
    super(message);
    this.code = code;
  }
}

const GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';
/** RFC 8628 §3.2: the interval when the server names none. */
const DEFAULT_INTERVAL_S = 5;
/** RFC 8628 §3.5: what `slow_down` adds to the interval, for this and every later poll. */
const SLOW_DOWN_S = 5;
/** Network failures in a row while polling before giving up (one is a blip, not a verdict). */
const MAX_POLL_FAILURES = 3;

/**
 * Runs the device flow to its end and resolves with the GitHub access token.
 * Polls no faster than the server's `interval`; `authorization_pending` keeps polling, `slow_down` adds 5 s
 * to the interval, `expired_token` (or the code's `expires_in` passing) and `access_denied` end it.
 * @throws DeviceFlowError (expired, denied, refused by GitHub, GitHub unreachable); the signal's reason
 * when `signal` aborts.
 */
export async function runDeviceFlow(options: DeviceFlowOptions, signal?: AbortSignal): Promise<string> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const started = now();
  const code = await requestDeviceCode(options, signal);
  options.onCode(code.shown);
  const expiresAt = started + code.shown.expiresInSeconds * 1000;
  let intervalSeconds = code.intervalSeconds;
  let failures = 0;
  for (;;) {
    await sleep(intervalSeconds * 1000, signal);
    if (now() >= expiresAt) throw expired();
    let answer: Record<string, unknown>;
    try {
      answer = await postForm(
        options,
        '/login/oauth/access_token',
        {
          client_id: options.clientId,
          device_code: code.deviceCode,
          grant_type: GRANT_TYPE,
        },
        signal,
      );
      failures = 0;
    } catch (error) {
      if (!(error instanceof DeviceFlowError) || error.code !== 'unreachable') throw error;
      if (++failures >= MAX_POLL_FAILURES) throw error;
      continue;
    }
    if (typeof answer.access_token === 'string' && answer.access_token) return answer.access_token;
    switch (answer.error) {
      case 'authorization_pending':
        options.onPoll?.({ answer: 'authorization_pending', intervalSeconds });
        break;
      case 'slow_down': {
        const asked = typeof answer.interval === 'number' ? answer.interval : 0;
        intervalSeconds = Math.max(intervalSeconds + SLOW_DOWN_S, asked);
        options.onPoll?.({ answer: 'slow_down', intervalSeconds });
        break;
      }
      case 'expired_token':
        throw expired();
      case 'access_denied':
        throw new DeviceFlowError(
          'denied',
          'The sign-in was cancelled on GitHub (access denied); nothing was saved. Run the command again to retry.',
        );
      default:
        throw refusedBy(answer, options.clientId);
    }
  }
}

function expired(): DeviceFlowError {
  return new DeviceFlowError(
    'expired',
    'The sign-in code expired before it was entered on GitHub; nothing was saved. Run the command again for a new code.',
  );
}

async function requestDeviceCode(
  options: DeviceFlowOptions,
  signal: AbortSignal | undefined,
): Promise<{ deviceCode: string; intervalSeconds: number; shown: DeviceCode }> {
  const answer = await postForm(
    options,
    '/login/device/code',
    { client_id: options.clientId, scope: options.scope },
    signal,
  );
  if (typeof answer.error === 'string') throw refusedBy(answer, options.clientId);
  const { device_code, user_code, verification_uri, verification_uri_complete } = answer;
  if (
    typeof device_code !== 'string' ||
    typeof user_code !== 'string' ||
    typeof verification_uri !== 'string' ||
    !/^https?:\/\//.test(verification_uri)
  ) {
    throw new DeviceFlowError(
      'refused',
      `GitHub's answer to the sign-in request (${options.githubUrl}/login/device/code) lacks a device code, user code or verification URL; check the GitHub address (${options.githubUrl}).`,
    );
  }
  const expiresIn = positive(answer.expires_in) ?? 900;
  const shown: DeviceCode = {
    userCode: user_code,
    verificationUri: verification_uri,
    expiresInSeconds: expiresIn,
  };
  if (typeof verification_uri_complete === 'string' && /^https?:\/\//.test(verification_uri_complete))
    shown.verificationUriComplete = verification_uri_complete;
  const interval = typeof answer.interval === 'number' && answer.interval >= 0 ? answer.interval : undefined;
  return { deviceCode: device_code, intervalSeconds: interval ?? DEFAULT_INTERVAL_S, shown };
}

function refusedBy(answer: Record<string, unknown>, clientId: string): DeviceFlowError {
  const error = typeof answer.error === 'string' ? answer.error : 'unknown_error';
  const description =
    typeof answer.error_description === 'string' ? `: ${answer.error_description.slice(0, 200)}` : '';
  const hint =
    error === 'incorrect_client_credentials' || error === 'device_flow_disabled' || error === 'Not Found'
      ? ` The client id "${clientId}" is not one GitHub accepts for the device flow; check --client-id or WREN_COPILOT_CLIENT_ID.`
      : ' Run the command again; if it keeps failing, check the GitHub address and client id.';
  return new DeviceFlowError('refused', `GitHub refused the sign-in (${error}${description}).${hint}`);
}

/**
 * POSTs a form to GitHub asking for JSON and returns the parsed object. GitHub answers device-flow errors
 * as JSON with status 200 (RFC 8628 says 400): both are read the same way.
 * @throws DeviceFlowError `unreachable` (network, timeout) or `refused` (an answer that is not JSON).
 */
async function postForm(
  options: DeviceFlowOptions,
  path: string,
  form: Record<string, string>,
  signal: AbortSignal | undefined,
): Promise<Record<string, unknown>> {
  const url = `${options.githubUrl}${path}`;
  const deadline = createDeadline(options.requestTimeoutMs ?? 30_000, signal);
  let status: number;
  let text: string;
  try {
    const response = await (options.fetch ?? fetch)(url, {
      method: 'POST',
      headers: {
        ...options.headers,
        accept: 'application/json',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams(form).toString(),
      signal: deadline.signal,
    });
    status = response.status;
    text = await response.text();
  } catch (error) {
    if (signal?.aborted) throw signal.reason ?? error;
    const why = deadline.timedOut ? 'no answer in time' : describeFailure(error);
    throw new DeviceFlowError(
      'unreachable',
      `Could not reach GitHub at ${url} (${why}). Check your connection and the GitHub address.`,
    );
  } finally {
    deadline.dispose();
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
    const record = parsed as Record<string, unknown>;
    if (status < 400 || typeof record.error === 'string') return record;
    if (typeof record.message === 'string') return { error: record.message };
  }
  throw new DeviceFlowError(
    'refused',
    `GitHub answered ${url} with HTTP ${status} and no usable JSON; check the GitHub address (${options.githubUrl}).`,
  );
}

function describeFailure(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return error instanceof Error ? error.message : String(error);
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}
