/**
 * A fake of GitHub's side of Copilot on 127.0.0.1, speaking the real wire formats:
 * - `POST /login/device/code`, `POST /login/oauth/access_token` — the OAuth device flow (github.com), form
 *   bodies in, JSON out (errors as 200 + `{error}`, as GitHub does); poll answers are scripted;
 * - `GET /copilot_internal/v2/token` — the token exchange (api.github.com): `Authorization: token <github
 *   token>` → `{token, expires_at, refresh_in, endpoints: {api}}`;
 * - `POST /api/chat/completions` — the chat API (api.githubcopilot.com): needs a live Copilot API token as
 *   bearer and the editor headers, then is answered by an inner FakeLlmServer (script it through `llm`).
 *
 * ```ts
 * const copilot = await startFakeCopilotServer({ polls: ['authorization_pending', 'slow_down'] });
 * copilot.llm.script({ text: 'hello' });
 * copilot.revokeApiTokens(); // the next chat call answers 401 until a new token is exchanged
 * ```
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Readable } from 'node:stream';
import { COPILOT_CLIENT_ID } from '../../src/llm/copilot-auth.js';
import { type FakeLlmServer, startFakeLlmServer } from './fake-llm-server.js';

/** How the token endpoint answers one poll. */
export type PollAnswer =
  | 'authorization_pending'
  | 'slow_down'
  | 'expired_token'
  | 'access_denied'
  | 'success';

export interface FakeCopilotServerOptions {
  /** Answers to the polls, in order; once used up every poll succeeds. */
  polls?: PollAnswer[];
  /** `interval` of the device code answer, in seconds (omitted from the answer when null). Default 5. */
  interval?: number | null;
  /** `expires_in` of the device code answer, in seconds. Default 900. */
  expiresIn?: number;
  /** `interval` sent with a `slow_down` answer (GitHub sends one; RFC 8628 does not require it). */
  slowDownInterval?: number;
  /** The only client id accepted. Default: the Copilot editor integration's. */
  clientId?: string;
  /** Whether the signed-in account has Copilot (else the exchange answers 403). Default true. */
  copilotAccess?: boolean;
  /** Lifetime of a Copilot API token (`expires_at` = now + this). Default 1800. */
  tokenLifetimeSeconds?: number;
  /** `refresh_in` of the exchange. Default lifetime − 300, at least 1. */
  refreshInSeconds?: number;
  /** Answer the exchange without `endpoints.api`. */
  omitApiEndpoint?: boolean;
  /** Answer the exchange with 200 and a body that has no token. */
  exchangeWithoutToken?: boolean;
  /** The clock behind `expires_at` and the recorded poll times. Default Date.now. */
  now?: () => number;
}

/** One request to the token endpoint. */
export interface RecordedPoll {
  at: number;
  form: Record<string, string>;
  answer: PollAnswer | 'refused';
}

/** One request to the chat API, as it arrived (before the inner fake answered it). */
export interface RecordedChat {
  path: string;
  headers: Record<string, string>;
  /** The bearer presented. */
  token: string | undefined;
  status: number;
  body: string;
}

export interface FakeCopilotServer {
  /** `http://127.0.0.1:<port>`: the GitHub address for the device flow. */
  url: string;
  /** The token exchange. */
  tokenUrl: string;
  /** The chat API base named in `endpoints.api`. */
  apiUrl: string;
  /** The GitHub token a successful sign-in hands out. */
  githubToken: string;
  /** Copilot API tokens issued so far, oldest first. */
  apiTokens: string[];
  deviceCodeRequests: Array<{ headers: Record<string, string>; form: Record<string, string> }>;
  polls: RecordedPoll[];
  exchanges: Array<{ headers: Record<string, string>; status: number }>;
  chats: RecordedChat[];
  /** Answers the chat calls that pass the checks. */
  llm: FakeLlmServer;
  /**
   * Every API token issued so far stops working (expired server-side); with `future`, every token issued
   * from now on too (a chat API that keeps refusing).
   */
  revokeApiTokens(options?: { future?: boolean }): void;
  close(): Promise<void>;
}

const EDITOR_HEADERS = ['editor-version', 'editor-plugin-version', 'copilot-integration-id'];

/** Starts the fake on a random free port of 127.0.0.1. */
export async function startFakeCopilotServer(
  options: FakeCopilotServerOptions = {},
): Promise<FakeCopilotServer> {
  const llm = await startFakeLlmServer();
  const now = options.now ?? Date.now;
  const queue = [...(options.polls ?? [])];
  const revoked = new Set<string>();
  let revokeFuture = false;
  const sockets = new Set<Socket>();
  let serial = 0;
  const state = {
    githubToken: `gho_fakeGithubToken${Math.random().toString(36).slice(2, 12)}`,
    apiTokens: [] as string[],
    deviceCodeRequests: [] as FakeCopilotServer['deviceCodeRequests'],
    polls: [] as RecordedPoll[],
    exchanges: [] as FakeCopilotServer['exchanges'],
    chats: [] as RecordedChat[],
  };
  const deviceCodes = new Set<string>();
  const clientId = options.clientId ?? COPILOT_CLIENT_ID;

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { message: `fake Copilot server bug: ${String(error)}` });
      else res.destroy();
    });
  });

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    const body = await readBody(req);
    const headers = flatHeaders(req);
    if (req.method === 'POST' && path === '/login/device/code') return deviceCode(headers, body, res);
    if (req.method === 'POST' && path === '/login/oauth/access_token') return poll(body, res);
    if (req.method === 'GET' && path === '/copilot_internal/v2/token') return exchange(headers, res);
    if (req.method === 'POST' && path.endsWith('/chat/completions'))
      return chat({ path, headers, body }, res);
    sendJson(res, 404, { message: 'Not Found' });
  }

  function deviceCode(headers: Record<string, string>, body: string, res: ServerResponse) {
    const form = Object.fromEntries(new URLSearchParams(body));
    state.deviceCodeRequests.push({ headers, form });
    if (form.client_id !== clientId)
      return sendJson(res, 200, {
        error: 'incorrect_client_credentials',
        error_description: 'The client_id is not valid.',
      });
    const code = `dc_${++serial}_${Math.random().toString(36).slice(2)}`;
    deviceCodes.add(code);
    sendJson(res, 200, {
      device_code: code,
      user_code: 'WREN-1234',
      verification_uri: `${url}/login/device`,
      expires_in: options.expiresIn ?? 900,
      ...(options.interval === null ? {} : { interval: options.interval ?? 5 }),
    });
  }

  function poll(body: string, res: ServerResponse) {
    const form = Object.fromEntries(new URLSearchParams(body));
    const valid =
      form.client_id === clientId &&
      form.grant_type === 'urn:ietf:params:oauth:grant-type:device_code' &&
      deviceCodes.has(form.device_code ?? '');
    if (!valid) {
      state.polls.push({ at: now(), form, answer: 'refused' });
      return sendJson(res, 200, {
        error: 'incorrect_device_code',
        error_description: 'The device_code is not valid.',
      });
    }
    const answer = queue.shift() ?? 'success';
    state.polls.push({ at: now(), form, answer });
    if (answer === 'success')
      return sendJson(res, 200, {
        access_token: state.githubToken,
        token_type: 'bearer',
        scope: 'read:user',
      });
    const extra =
      answer === 'slow_down' && options.slowDownInterval !== undefined
        ? { interval: options.slowDownInterval }
        : {};
    sendJson(res, 200, { error: answer, error_description: `fake: ${answer}`, ...extra });
  }

  function exchange(headers: Record<string, string>, res: ServerResponse) {
    const status =
      headers.authorization !== `token ${state.githubToken}`
        ? 401
        : options.copilotAccess === false
          ? 403
          : 200;
    state.exchanges.push({ headers, status });
    if (status === 401) return sendJson(res, 401, { message: 'Bad credentials' });
    if (status === 403) return sendJson(res, 403, { message: 'Copilot is not enabled for this account' });
    if (options.exchangeWithoutToken) return sendJson(res, 200, { message: 'no token today' });
    const lifetime = options.tokenLifetimeSeconds ?? 1800;
    // Shaped like the real ones: fields separated by ';', the signature after ':'.
    const token = `tid=fake${++serial};exp=${Math.floor(now() / 1000) + lifetime};sku=fake:${Math.random().toString(36).slice(2)}`;
    state.apiTokens.push(token);
    if (revokeFuture) revoked.add(token);
    sendJson(res, 200, {
      token,
      expires_at: Math.floor(now() / 1000) + lifetime,
      refresh_in: options.refreshInSeconds ?? Math.max(1, lifetime - 300),
      ...(options.omitApiEndpoint ? {} : { endpoints: { api: apiUrl } }),
    });
  }

  async function chat(
    request: { path: string; headers: Record<string, string>; body: string },
    res: ServerResponse,
  ): Promise<void> {
    const token = request.headers.authorization?.replace(/^Bearer\s+/i, '');
    const live = token !== undefined && state.apiTokens.includes(token) && !revoked.has(token);
    const missing = EDITOR_HEADERS.find((name) => !request.headers[name]);
    const status = !live ? 401 : missing ? 400 : 200;
    state.chats.push({ path: request.path, headers: request.headers, token, status, body: request.body });
    if (status === 401)
      // Echoes the token it refused, as some servers do: clients must not pass that on.
      return sendJson(res, 401, {
        error: { message: `unauthorized: token expired (${token ?? 'none'})`, code: 'unauthorized' },
      });
    if (missing)
      return sendJson(res, 400, {
        error: { message: `bad request: missing ${missing} header for IDE auth` },
      });
    const answer = await fetch(`${llm.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...pick(request.headers, EDITOR_HEADERS) },
      body: request.body,
    });
    const hopByHop = new Set(['connection', 'keep-alive', 'transfer-encoding']);
    res.writeHead(
      answer.status,
      Object.fromEntries([...answer.headers].filter(([name]) => !hopByHop.has(name))),
    );
    if (answer.body) Readable.fromWeb(answer.body as import('node:stream/web').ReadableStream).pipe(res);
    else res.end();
  }

  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const apiUrl = `${url}/api`;
  return {
    url,
    tokenUrl: `${url}/copilot_internal/v2/token`,
    apiUrl,
    githubToken: state.githubToken,
    apiTokens: state.apiTokens,
    deviceCodeRequests: state.deviceCodeRequests,
    polls: state.polls,
    exchanges: state.exchanges,
    chats: state.chats,
    llm,
    revokeApiTokens: (revoke) => {
      for (const token of state.apiTokens) revoked.add(token);
      revokeFuture = revoke?.future === true;
    },
    close: async () => {
      await new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      });
      await llm.close();
    },
  };
}

function pick(headers: Record<string, string>, names: string[]): Record<string, string> {
  return Object.fromEntries(names.flatMap((name) => (headers[name] ? [[name, headers[name]]] : [])));
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
