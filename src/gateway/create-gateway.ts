import { createHmac } from 'node:crypto';
import type { Server } from 'node:http';
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { parse as parseCookies } from 'hono/utils/cookie';
import type { HttpChannel } from '../channels/http/http-channel.js';
import type { Gate } from '../gate/create-gate.js';
import type { ChannelRepository } from '../store/channel-repository.js';
import type { GoalRepository } from '../store/goal-repository.js';
import type { SqliteSessionStore } from '../store/sqlite-session-store.js';
import { apiHeaders } from './api-headers.js';
import { type BrowserSessions, presentedKey, SESSION_COOKIE } from './browser-sessions.js';
import { registerChatRoutes } from './chat-routes.js';
import { registerFileRoutes } from './file-routes.js';
import { registerGateRoutes } from './gate-routes.js';
import { registerGoalRoutes } from './goal-routes.js';
import { registerLiveSocket } from './live-socket.js';
import { registerOpenAiCompatibleRoutes } from './openai-compatible-routes.js';
import { openAiErrorShape } from './openai-error.js';
import type { OpenAiApprovalMode } from './openai-turn.js';
import { registerPairingRoutes } from './pairing-routes.js';
import { type ProactiveRouteOptions, registerProactiveRoutes } from './proactive-routes.js';
import { problem } from './problem.js';
import { AuthLimiter, allowedHostnames, hostGuard, tokenAuth } from './request-guard.js';
import { registerSessionRoutes, registerSignInRoutes, sessionCookie } from './session-routes.js';
import { registerWebAppRoutes } from './web-app-routes.js';

export { MAX_IMAGE_BASE64_CHARS, MAX_IMAGES, MAX_MESSAGE_CHARS } from './chat-routes.js';

export interface GatewayOptions {
  /** The API's channel (started here): every chat message and event stream goes through it. */
  channel: HttpChannel;
  store: Pick<SqliteSessionStore, 'listSessions' | 'getSession' | 'recentMessages'> &
    Partial<Pick<SqliteSessionStore, 'sessionTitles'>>;
  verifyToken: (token: string) => boolean;
  /** Facts for `GET /api/status` (models, turns in flight, usage). */
  status: () => Record<string, unknown>;
  version: string;
  startedAt: number;
  /** Unexpected failures (logged by the caller; the client gets a generic message). */
  onError?: (error: Error) => void;
  /** The approval gate: pending approvals, grants and the audit log. Without it those routes answer 503. */
  gate?: Pick<Gate, 'approvals' | 'grants' | 'audit'>;
  /** Background subagents: `GET /api/subagents`, `DELETE /api/subagents/:id`. */
  subagents?: { list(): unknown[]; cancel(id: string): boolean };
  /** Folders `GET /api/files/<path>` may serve from (the workspace first); without it the route answers 404. */
  fileRoots?: () => string[];
  /** Reminders, the feed and the scheduler's tick; without it those routes answer 404. */
  proactive?: ProactiveRouteOptions;
  /** Goals, steps and proposals (`/api/goals…`); without it those routes answer 404. */
  goals?: GoalRepository;
  /** Pairing codes of the chat channels (`/api/pairings…`); without it those routes answer 404. */
  pairings?: Pick<ChannelRepository, 'listPairings' | 'approvePairing' | 'revokePairing'>;
  /** Host names requests may name in `Host`/`Origin` (default: the loopback names). */
  allowedHosts?: () => ReadonlySet<string>;
  /** Failed-token rate limiting (default: 10 per address per minute). */
  limiter?: AuthLimiter;
  /** Local commands' token (see gateway.json): accepted even while its address is rate-limited. */
  isLocalToken?: (token: string) => boolean;
  /**
   * The secret of this gateway run, kept in the home's `gateway.json`: `GET /api/health?challenge=X` answers
   * with `proof = HMAC-SHA256(secret, X)`, so a CLI can tell this home's gateway from whatever else answers on
   * the port before it sends a token.
   */
  instanceSecret?: string;
  /** Signed-in browsers (cookie sessions and one-time links); without it only bearer tokens authenticate. */
  browserSessions?: BrowserSessions;
  /** The built web app's folder (default: dist/web when built); `false` serves no app. */
  webRoot?: string | false;
  /** When the scheduler next wakes (ms), for the WebSocket's first frame. */
  nextDue?: () => number | null;
  /** Masks secrets in what the live views show of tool calls (the gate's redactor). */
  redact?: (text: string) => string;
  /**
   * `gateway.openai_compat.approvals` for `POST /v1/chat/completions`: `deny` calls that need approval at once,
   * or `wait` for the owner's answer (default `deny`).
   */
  openAiApprovals?: () => OpenAiApprovalMode;
  /**
   * Routes behind the auth check that are loaded on first use (memory, settings … — the web app's pages), so
   * their modules cost the gateway's start nothing: requests whose path `matches` go to the app `load`
   * resolves with (once); its 404 falls through to the routes here.
   */
  lazyRoutes?: { matches: (path: string) => boolean; load: () => Promise<Hono> };
}

/** The gateway app; `injectWebSocket(server)` attaches `/ws` once a Node server listens. */
export type GatewayApp = Hono & {
  injectWebSocket(server: Server): void;
  closeSockets(): void;
  /** Loads the lazy routes now (after start-up, so the first page that needs them does not wait). */
  warmUp(): Promise<void>;
};

const LOOPBACK = allowedHostnames('127.0.0.1', []);
/** Marks a lazily loaded app's 404: the request continues to the gateway's own routes. */
const FALL_THROUGH = 'x-wren-fall-through';

/** Builds the HTTP API as a Hono app (served by `serveGateway`, tested with `app.request`). */
export function createGateway(options: GatewayOptions): GatewayApp {
  const app = new Hono();
  void options.channel.start();

  app.use('/v1/*', openAiErrorShape);
  app.use('*', hostGuard(options.allowedHosts ?? (() => LOOPBACK)));
  app.use('/api/*', apiHeaders);
  app.use('/v1/*', apiHeaders);

  app.get('/api/health', (c) => {
    const challenge = c.req.query('challenge');
    const proof =
      challenge && options.instanceSecret && challenge.length <= 128
        ? createHmac('sha256', options.instanceSecret).update(challenge).digest('hex')
        : undefined;
    return c.json({
      ok: true,
      version: options.version,
      uptimeSeconds: Math.round((Date.now() - options.startedAt) / 1000),
      ...(proof ? { proof } : {}),
    });
  });

  const limiter = options.limiter ?? new AuthLimiter();
  const browsers = options.browserSessions;
  let closeSession: (id: string) => void = () => {};
  const sessionRoutes = browsers
    ? {
        sessions: browsers,
        verifyToken: options.verifyToken,
        limiter,
        onSignOut: (id: string) => closeSession(id),
      }
    : undefined;
  if (sessionRoutes) registerSignInRoutes(app, sessionRoutes);
  const auth = tokenAuth(
    options.verifyToken,
    limiter,
    options.isLocalToken,
    browsers ? (c) => browsers.verify(sessionCookie(c), presentedKey(c.req.raw.headers)) : undefined,
  );
  app.use('/api/*', auth);
  app.use('/v1/*', auth);
  if (sessionRoutes) registerSessionRoutes(app, sessionRoutes);

  app.get('/api/status', (c) => c.json(options.status()));

  app.get('/api/sessions', async (c) => {
    const sessions = await options.store.listSessions(100);
    const titles = options.store.sessionTitles?.(sessions.map((session) => session.id)) ?? new Map();
    return c.json({
      sessions: sessions.map((session) => {
        const title = titles.get(session.id);
        return title ? { ...session, title } : session;
      }),
    });
  });

  app.get('/api/sessions/:id/messages', async (c) => {
    const id = c.req.param('id');
    if (!(await options.store.getSession(id))) return c.json(problem('not_found', `No session ${id}.`), 404);
    const messages = await options.store.recentMessages(id, Number.MAX_SAFE_INTEGER);
    return c.json({ session: id, messages });
  });

  registerChatRoutes(app, options.channel, options.redact);
  registerOpenAiCompatibleRoutes(app, {
    channel: options.channel,
    startedAt: options.startedAt,
    ...(options.openAiApprovals ? { approvals: options.openAiApprovals } : {}),
  });
  registerGateRoutes(app, options);

  app.get('/api/subagents', (c) => c.json({ subagents: options.subagents?.list() ?? [] }));
  app.delete('/api/subagents/:id', (c) => {
    const id = c.req.param('id');
    return options.subagents?.cancel(id)
      ? c.json({ cancelled: id })
      : c.json(problem('not_found', `No running subagent ${id}.`), 404);
  });

  registerFileRoutes(app, options.fileRoots);
  if (options.proactive) registerProactiveRoutes(app, options.proactive);
  if (options.goals) {
    const wake = options.proactive?.wake;
    registerGoalRoutes(app, options.goals, wake ? { wake } : {});
  }

  if (options.pairings) registerPairingRoutes(app, options.pairings);
  const lazy = options.lazyRoutes;
  let loaded: Promise<Hono> | undefined;
  const loadLazy = () => {
    loaded ??= lazy!.load().then((routes) => {
      routes.notFound(() => new Response(null, { status: 404, headers: { [FALL_THROUGH]: '1' } }));
      // The gateway's own error handler answers (and logs) what these routes throw.
      routes.onError((error) => {
        throw error;
      });
      return routes;
    });
    return loaded;
  };
  if (lazy) {
    app.use('/api/*', async (c, next) => {
      if (!lazy.matches(c.req.path)) return next();
      const response = await (await loadLazy()).fetch(c.req.raw, c.env);
      if (response.headers.get(FALL_THROUGH)) return next();
      return response;
    });
  }

  const live = registerLiveSocket(app, auth, {
    channel: options.channel,
    ...(options.nextDue ? { nextDue: options.nextDue } : {}),
    sessionOf: (request) => parseCookies(request.headers.get('cookie') ?? '', SESSION_COOKIE)[SESSION_COOKIE],
  });
  closeSession = live.closeSession;
  if (options.webRoot !== false) registerWebAppRoutes(app, options.webRoot);

  app.notFound((c) => c.json(problem('not_found', `No route ${c.req.method} ${c.req.path}.`), 404));
  app.onError((error, c) => {
    if (error instanceof HTTPException) return error.getResponse();
    options.onError?.(error);
    return c.json(
      problem('internal', 'Something went wrong inside Wren; the details are in logs/wren.log.'),
      500,
    );
  });
  return Object.assign(app, {
    injectWebSocket: (server: Server) => live.inject(server),
    closeSockets: () => live.closeAll(),
    warmUp: async () => {
      if (lazy) await loadLazy();
    },
  });
}
