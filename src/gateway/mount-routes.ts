import type { Server } from 'node:http';
import { Hono } from 'hono';
import { parse as parseCookies } from 'hono/utils/cookie';
import { apiHeaders } from './api-headers.js';
import { presentedKey, SESSION_COOKIE } from './browser-sessions.js';
import { calendarRoutes } from './calendar-routes.js';
import { channelRoutes } from './channel-routes.js';
import { chatRoutes } from './chat-routes.js';
import { fileRoutes } from './file-routes.js';
import { gateRoutes } from './gate-routes.js';
import type { GatewayOptions } from './gateway-options.js';
import { goalRoutes } from './goal-routes.js';
import { healthRoutes } from './health-routes.js';
import { hookRoutes } from './hook-routes.js';
import { liveSocket } from './live-socket.js';
import { openAiCompatibleRoutes } from './openai-compatible-routes.js';
import { openAiErrorShape } from './openai-error.js';
import { pairingRoutes } from './pairing-routes.js';
import { proactiveRoutes } from './proactive-routes.js';
import { AuthLimiter, allowedHostnames, hostGuard, tokenAuth } from './request-guard.js';
import { sessionHistoryRoutes } from './session-history-routes.js';
import { type SessionRouteOptions, sessionCookie, sessionRoutes, signInRoutes } from './session-routes.js';
import { statusRoutes } from './status-routes.js';
import { turnRoutes } from './turn-routes.js';
import { vaultRoutes } from './vault-routes.js';
import { webAppRoutes } from './web-app-routes.js';

/** What the gateway keeps of its mounted routes: the WebSocket's handles and the lazy groups' loader. */
export interface MountedRoutes {
  injectWebSocket(server: Server): void;
  closeSockets(): void;
  /** Loads the lazy route groups now (a no-op without them). */
  warmUp(): Promise<void>;
}

const LOOPBACK = allowedHostnames('127.0.0.1', []);
/** Marks a lazily loaded group's 404: the request continues to the eager routes. */
const FALL_THROUGH = 'x-wren-fall-through';

/**
 * The one place the gateway's route groups (each a Hono sub-app built by its factory) are mounted, in the
 * order they match: the guards first (OpenAI error shape on /v1, Host/Origin, API headers), health and
 * sign-in before the token check, every other group behind it, the lazy groups (loaded on first use), the
 * WebSocket and last the web app's catch-all. Order matters: a group mounted before `auth` is public.
 */
export function mountRoutes(app: Hono, options: GatewayOptions): MountedRoutes {
  app.use('/v1/*', openAiErrorShape);
  app.use('*', hostGuard(options.allowedHosts ?? (() => LOOPBACK)));
  app.use('/api/*', apiHeaders);
  app.use('/v1/*', apiHeaders);

  app.route('/', healthRoutes(options));
  if (options.hooks) app.route('/', hookRoutes(options.hooks));
  let closeSession: (id: string) => void = () => {};
  const browsers = options.browserSessions;
  const limiter = options.limiter ?? new AuthLimiter();
  const signIn: SessionRouteOptions | undefined = browsers
    ? { sessions: browsers, verifyToken: options.verifyToken, limiter, onSignOut: (id) => closeSession(id) }
    : undefined;
  if (signIn) app.route('/', signInRoutes(signIn));
  const auth = tokenAuth(
    options.verifyToken,
    limiter,
    options.isLocalToken,
    browsers ? (c) => browsers.verify(sessionCookie(c), presentedKey(c.req.raw.headers)) : undefined,
  );
  app.use('/api/*', auth);
  app.use('/v1/*', auth);
  if (signIn) app.route('/', sessionRoutes(signIn));

  mountOwnerApi(app, options);
  const warmUp = mountLazyRoutes(app, options.lazyRoutes);

  const live = liveSocket(app, auth, {
    channel: options.channel,
    ...(options.nextDue ? { nextDue: options.nextDue } : {}),
    sessionOf: (request) => parseCookies(request.headers.get('cookie') ?? '', SESSION_COOKIE)[SESSION_COOKIE],
  });
  app.route('/', live.routes);
  closeSession = live.closeSession;
  if (options.webRoot !== false) app.route('/', webAppRoutes(options.webRoot));
  return { injectWebSocket: (server) => live.inject(server), closeSockets: () => live.closeAll(), warmUp };
}

/** The eagerly loaded groups behind the token check; one without its dependency is not mounted (404). */
function mountOwnerApi(app: Hono, options: GatewayOptions): void {
  app.route('/', statusRoutes(options));
  app.route('/', sessionHistoryRoutes(options.sessions));
  app.route('/', chatRoutes(options.channel, options.redact));
  app.route('/', turnRoutes(options.channel, options.redact ?? ((text) => text)));
  app.route(
    '/',
    openAiCompatibleRoutes({
      channel: options.channel,
      startedAt: options.startedAt,
      ...(options.openAiApprovals ? { approvals: options.openAiApprovals } : {}),
    }),
  );
  app.route('/', gateRoutes(options));
  app.route('/', fileRoutes(options.fileRoots));
  if (options.proactive) app.route('/', proactiveRoutes(options.proactive));
  if (options.goals) {
    const wake = options.proactive?.wake;
    app.route('/', goalRoutes(options.goals, wake ? { wake } : {}));
  }
  if (options.pairings) app.route('/', pairingRoutes(options.pairings));
  if (options.calendars) app.route('/', calendarRoutes(options.calendars));
  if (options.channelControls) app.route('/', channelRoutes(options.channelControls));
  if (options.gate?.vault) app.route('/', vaultRoutes(options.gate.vault));
}

/**
 * Requests whose path the lazy groups match go to them, loaded once on first use; their 404 falls through to
 * the routes after them, and what they throw reaches the gateway's error handler.
 * @returns `warmUp`, which loads them now.
 */
function mountLazyRoutes(app: Hono, lazy: GatewayOptions['lazyRoutes']): () => Promise<void> {
  if (!lazy) return async () => {};
  let loaded: Promise<Hono> | undefined;
  const load = () => {
    loaded ??= lazy.load().then((groups) => {
      const routes = new Hono();
      for (const group of groups instanceof Hono ? [groups] : groups) routes.route('/', group);
      routes.notFound(() => new Response(null, { status: 404, headers: { [FALL_THROUGH]: '1' } }));
      // The gateway's own error handler answers (and logs) what these routes throw.
      routes.onError((error) => {
        throw error;
      });
      return routes;
    });
    return loaded;
  };
  app.use('/api/*', async (c, next) => {
    if (!lazy.matches(c.req.path)) return next();
    const response = await (await load()).fetch(c.req.raw, c.env);
    if (response.headers.get(FALL_THROUGH)) return next();
    return response;
  });
  return async () => {
    await load();
  };
}
