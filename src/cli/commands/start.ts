import { createApp } from '../../app.js';
import { secretValues } from '../../app-tools.js';
import { ensureHome } from '../../config/home.js';
import { loadConfig, resolveEndpoints } from '../../config/load-config.js';
import { Redactor } from '../../gate/redactor.js';
import { createGateway } from '../../gateway/create-gateway.js';
import { isLoopbackHost, settleGatewayToken } from '../../gateway/gateway-token.js';
import { serveGateway } from '../../gateway/serve-gateway.js';
import type { EndpointConfig } from '../../llm/endpoint.js';
import { consolidationStatus } from '../../store/consolidation-status-repository.js';
import { usageTotals } from '../../store/usage-repository.js';
import { ConfigError } from '../../util/config-error.js';
import { createLogger } from '../../util/logger.js';
import { findLocalEndpoint, noModelHelp } from '../local-model-fallback.js';

export interface StartOptions {
  home: string;
  version: string;
  host?: string;
  port?: number;
}

/** Characters a bearer token may carry (RFC 6750 b64token); anything else could never authenticate. */
const TOKEN_SHAPE = /^[A-Za-z0-9\-._~+/]+=*$/;
const MIN_TOKEN_LENGTH = 16;

function checkTokenStrength(token: string): void {
  if (!TOKEN_SHAPE.test(token)) {
    throw new ConfigError(
      'gateway.token (or WREN_GATEWAY_TOKEN) has characters a bearer token cannot carry; use letters, digits and - . _ ~ + /',
      { keyPath: 'gateway.token', envVar: 'WREN_GATEWAY_TOKEN' },
    );
  }
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new ConfigError(
      `gateway.token (or WREN_GATEWAY_TOKEN) is shorter than ${MIN_TOKEN_LENGTH} characters; use a long random value (e.g. \`openssl rand -hex 24\`)`,
      { keyPath: 'gateway.token', envVar: 'WREN_GATEWAY_TOKEN' },
    );
  }
}

function memoryMb(): Record<string, number> {
  const usage = process.memoryUsage();
  const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;
  return {
    rss: mb(usage.rss),
    heapUsed: mb(usage.heapUsed),
    heapTotal: mb(usage.heapTotal),
    external: mb(usage.external),
  };
}

/** How long SIGTERM waits for running turns before cancelling them. */
const DRAIN_MS = 10_000;

/**
 * `wren start`: the long-running process. Takes the home lock, serves the HTTP API and applies config edits
 * live. SIGTERM/SIGINT drain in-flight turns (bounded), close the database and exit 0.
 */
export async function runStart(options: StartOptions): Promise<void> {
  const { home } = options;
  ensureHome(home);
  const config = loadConfig(home);
  const redactor = new Redactor(secretValues(home, config));
  const logger = createLogger(home, config.log.level, redactor);
  let fallback: EndpointConfig[] | undefined;
  let modelNote = '';
  if (resolveEndpoints(config).length === 0) {
    const found = await findLocalEndpoint();
    if (found) {
      fallback = [found.endpoint];
      modelNote = `No model configured; using ${found.server.preset} at ${found.server.baseUrl} (${found.endpoint.model}) for this run. \`wren onboard\` saves a model.`;
    } else {
      modelNote = noModelHelp(home);
    }
  }
  const host = options.host ?? config.gateway.host;
  const port = options.port ?? config.gateway.port;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ConfigError(`--port must be a whole number from 0 to 65535, got ${options.port}`, {
      keyPath: 'gateway.port',
    });
  }
  const configuredToken = config.gateway.token ?? process.env['WREN_GATEWAY_TOKEN'];
  if (!isLoopbackHost(host) && !configuredToken) {
    throw new ConfigError(
      `refusing to listen on ${host} without a configured token: anyone who can reach this address could use ` +
        'your assistant. Set gateway.token: ${WREN_GATEWAY_TOKEN} in config.yaml (and the variable in .env), or use 127.0.0.1.',
      { keyPath: 'gateway.token', envVar: 'WREN_GATEWAY_TOKEN' },
    );
  }

  if (configuredToken) checkTokenStrength(configuredToken);

  const app = createApp({
    home,
    logger,
    redactor,
    lock: true,
    watch: true,
    ...(fallback ? { fallbackEndpoints: fallback } : {}),
  });
  // Settled only once the port is ours, so a failed start never stores a token nobody was shown.
  let token: ReturnType<typeof settleGatewayToken> | undefined;
  const gatewayApp = createGateway({
    bus: app.bus,
    store: app.sessions,
    verifyToken: (presented) => token?.verify(presented) ?? false,
    gate: app.gate,
    fileRoots: app.fileRoots,
    subagents: app.subagents,
    onError: (error) => logger.error({ err: error }, 'gateway request failed'),
    version: options.version,
    startedAt: app.startedAt,
    status: () => ({
      version: options.version,
      uptimeSeconds: Math.round((Date.now() - app.startedAt) / 1000),
      models: app.pool.status(),
      turnsInFlight: app.runtime.inFlight(),
      memoryMb: memoryMb(),
      consolidation: consolidationStatus(app.db),
      mcp: app.mcp.status(),
      subagents: app.subagents.list(),
      usage: usageTotals(app.db),
    }),
  });
  let gateway: Awaited<ReturnType<typeof serveGateway>>;
  try {
    gateway = await serveGateway(gatewayApp, host, port);
  } catch (error) {
    await app.close(0);
    throw error;
  }
  token = settleGatewayToken(app.settings, configuredToken);
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const names = app.endpoints().map((endpoint) => `${endpoint.name} (${endpoint.model})`);
  out(`Wren ${options.version} · home ${home}`);
  if (names.length > 0) out(`  models: ${names.join(', ')}`);
  if (modelNote) out(modelNote);
  if (token.generated) {
    out(`  gateway token (shown once; keep it, \`wren token --rotate\` makes a new one): ${token.generated}`);
  }
  out('  chat here with `wren chat`; stop with Ctrl+C');
  out(`Listening on http://${host.includes(':') ? `[${host}]` : host}:${gateway.port}`);
  logger.info({ host, port: gateway.port, models: names }, 'gateway started');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    out(`\n${signal}: finishing running replies (up to ${DRAIN_MS / 1000} s)…`);
    logger.info({ signal }, 'shutting down');
    const listenerClosed = gateway.close();
    await app.close(DRAIN_MS);
    await Promise.race([listenerClosed, new Promise((resolve) => setTimeout(resolve, 2_000))]);
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}
