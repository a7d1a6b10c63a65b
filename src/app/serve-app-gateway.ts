import { hostname } from 'node:os';
import { type ChannelsConfig, platformConfig, registeredPlatforms } from '../channels/channels-config.js';
import { HttpChannel } from '../channels/http/http-channel.js';
import { BrowserSessions } from '../gateway/browser-sessions.js';
import { createGateway, type GatewayOptions } from '../gateway/create-gateway.js';
import {
  isLocalToken,
  newGatewayRecord,
  removeGatewayRecord,
  writeGatewayRecord,
} from '../gateway/gateway-file.js';
import { isLoopbackHost, settleGatewayToken } from '../gateway/gateway-token.js';
import { allowedHostnames } from '../gateway/request-guard.js';
import { type RunningGateway, serveGateway } from '../gateway/serve-gateway.js';
import { ConfigError } from '../util/config-error.js';
import type { ServedGateway, ServeOptions, WrenApp } from './wren-app.js';

/** The paths of the web app's data and settings route groups (owner-data-routes, settings-page-routes), loaded on first use. */
const LAZY_ROUTES =
  /^\/api\/(memory|tasks|memos|push|settings|models|mcp|onboarding|backup)(\/|$)|^\/api\/files$/;

/** Characters a bearer token may carry (RFC 6750 b64token); anything else could never authenticate. */
const TOKEN_SHAPE = /^[A-Za-z0-9\-._~+/]+=*$/;
/** Shortest configured token accepted on loopback, and for any other address. */
export const MIN_TOKEN_LENGTH = { loopback: 16, exposed: 32 };

/**
 * Refuses a configured token that could not authenticate or is too short to resist guessing: an address
 * other than loopback needs at least 32 characters, loopback 16.
 * @throws ConfigError naming the key and the variable.
 */
export function checkTokenStrength(token: string, host: string): void {
  const where = { keyPath: 'gateway.token', envVar: 'WREN_GATEWAY_TOKEN' };
  if (!TOKEN_SHAPE.test(token)) {
    throw new ConfigError(
      'gateway.token (or WREN_GATEWAY_TOKEN) has characters a bearer token cannot carry; use letters, digits and - . _ ~ + /',
      where,
    );
  }
  const exposed = !isLoopbackHost(host);
  const minimum = exposed ? MIN_TOKEN_LENGTH.exposed : MIN_TOKEN_LENGTH.loopback;
  if (token.length < minimum) {
    throw new ConfigError(
      `gateway.token (or WREN_GATEWAY_TOKEN) is shorter than ${minimum} characters${exposed ? ` while the gateway listens on ${host}, beyond this machine` : ''}; use a long random value (e.g. \`openssl rand -hex 24\`)`,
      where,
    );
  }
}

export type { ServedGateway, ServeOptions };

/**
 * Refuses to listen beyond loopback without a configured token, and a configured token that is too weak.
 * @throws ConfigError naming the key and the variable.
 */
function checkExposure(host: string, configuredToken: string | undefined): void {
  if (!isLoopbackHost(host) && !configuredToken) {
    throw new ConfigError(
      `refusing to listen on ${host} without a configured token: anyone who can reach this address could use ` +
        'your assistant. Set gateway.token: ${WREN_GATEWAY_TOKEN} in config.yaml (and the variable in .env), or use 127.0.0.1.',
      { keyPath: 'gateway.token', envVar: 'WREN_GATEWAY_TOKEN' },
    );
  }
  if (configuredToken) checkTokenStrength(configuredToken, host);
}

const isPlatform = (name: string) => registeredPlatforms.some((platform) => platform.name === name);

/** Why a known platform has no running channel, with what to do about it. */
function whyNotRunning(channels: ChannelsConfig, name: string): string {
  const section = platformConfig(channels, name);
  if (!section)
    return `The ${name} channel is not configured: add channels.${name} to config.yaml (docs/channels.md).`;
  if (!section.enabled) return `The ${name} channel is disabled in config.yaml (channels.${name}.enabled).`;
  return `The ${name} channel is not running (see logs/wren.log).`;
}

/**
 * What the gateway's route groups use of the app (everything but this run's channel, token and sign-ins).
 * The web app's data and settings groups are imported on first use, so they cost the start nothing.
 */
function routeDeps(app: WrenApp, version: string) {
  return {
    sessions: app.services.sessions,
    gate: app.gate,
    fileRoots: app.fileRoots,
    subagents: app.subagents,
    onError: (error: Error) => app.logger.error({ err: error }, 'gateway request failed'),
    startedAt: app.startedAt,
    status: () => app.status(version),
    proactive: {
      reminders: app.services.reminders,
      jobs: app.services.jobs,
      wake: () => app.proactive.wake(),
      defaultTargets: () => app.config().proactive.deliverTo,
    },
    goals: app.services.goals,
    pairings: app.services.pairings,
    hooks: {
      hooks: () => app.config().hooks,
      record: (event) => app.recordTrigger(event),
      defaultTargets: () => app.config().proactive.deliverTo,
      onError: (error) => app.logger.error({ err: error }, 'webhook delivery not stored'),
    },
    calendars: {
      calendars: () => app.config().calendars,
      store: app.calendars,
      timezone: () => app.config().agent.timezone,
      redact: (text: string) => app.gate.redactor.text(text),
    },
    channelControls: {
      running: (name: string) => (isPlatform(name) ? app.channels.get(name) : undefined),
      known: isPlatform,
      whyNotRunning: (name: string) => whyNotRunning(app.config().channels, name),
      redact: (text: string) => app.gate.redactor.text(text),
    },
    nextDue: () => app.nextDue() ?? null,
    redact: (text: string) => app.gate.redactor.text(text),
    openAiApprovals: () => app.config().gateway.openaiCompat.approvals,
    lazyRoutes: {
      matches: (path: string) => LAZY_ROUTES.test(path),
      load: async () => {
        const [{ ownerDataRoutes }, { settingsPageRoutes }] = await Promise.all([
          import('./owner-data-routes.js'),
          import('./settings-page-routes.js'),
        ]);
        return [...ownerDataRoutes(app), ...settingsPageRoutes(app)];
      },
    },
  } satisfies Partial<GatewayOptions>;
}

/**
 * Serves the app's HTTP API: checks the exposure (no token, no address beyond loopback; a short token is
 * refused), listens, settles the token (only once the port is ours, so a failed start never stores a token
 * nobody saw) and writes `gateway.json` for local commands.
 * @throws ConfigError for an unsafe or invalid setting; Error when the port cannot be bound.
 */
export async function serveAppGateway(app: WrenApp, options: ServeOptions): Promise<ServedGateway> {
  const config = app.config();
  const host = options.host ?? config.gateway.host;
  const port = options.port ?? config.gateway.port;
  const configuredToken = config.gateway.token || app.env['WREN_GATEWAY_TOKEN'] || undefined;
  checkExposure(host, configuredToken);
  const hosts = allowedHostnames(host, config.gateway.allowedHosts, hostname());
  let verify: ((presented: string) => boolean) | undefined;
  let record: ReturnType<typeof newGatewayRecord> | undefined;
  const channel = new HttpChannel({
    bus: app.bus,
    onError: (error) => app.logger.warn({ err: error }, 'api delivery failed'),
  });
  const unregister = app.channels.register(channel);
  const browserSessions = new BrowserSessions(app.settings);
  const gatewayApp = createGateway({
    channel,
    verifyToken: (presented) =>
      (record !== undefined && isLocalToken(record, presented)) || (verify?.(presented) ?? false),
    isLocalToken: (presented) => record !== undefined && isLocalToken(record, presented),
    ...routeDeps(app, options.version),
    version: options.version,
    allowedHosts: () => hosts,
    get instanceSecret() {
      return record?.secret;
    },
    browserSessions,
    ...(options.webRoot !== undefined ? { webRoot: options.webRoot } : {}),
  });
  let running: RunningGateway;
  try {
    running = await serveGateway(gatewayApp, host, port);
  } catch (error) {
    unregister();
    await channel.stop();
    throw error;
  }
  const token = settleGatewayToken(app.settings, configuredToken);
  verify = token.verify;
  // Browsers signed in with another token (config or WREN_GATEWAY_TOKEN changed since) are signed out.
  browserSessions.bindToken(configuredToken ?? `stored:${app.settings.get('gateway.token_sha256') ?? ''}`);
  const shownHost = host === '0.0.0.0' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const url = `http://${shownHost}:${running.port}`;
  record = newGatewayRecord(url, options.version);
  app.gate.redactor.add([record.localToken]);
  writeGatewayRecord(app.home, record);
  // The web app's lazily loaded routes, a moment after start-up rather than during it.
  setTimeout(() => {
    gatewayApp.warmUp().catch((error: unknown) => app.logger.warn({ err: error }, 'gateway routes'));
  }, 1000).unref();
  let closed: Promise<void> | undefined;
  return {
    url,
    port: running.port,
    ...(token.generated ? { generatedToken: token.generated } : {}),
    signInLink: () => `${url}/signin?code=${browserSessions.createLink().code}`,
    close() {
      closed ??= (async () => {
        if (record) removeGatewayRecord(app.home, record);
        unregister();
        await channel.stop();
        await running.close();
      })();
      return closed;
    },
  };
}
