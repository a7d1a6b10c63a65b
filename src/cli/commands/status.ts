import { withHome } from '../../app/open-home.js';
import { type ChannelsConfig, platformConfig } from '../../channels/channels-config.js';
import { platforms } from '../../channels/platform-registry.js';
import { resolveEndpoints } from '../../config/load-config.js';
import type { WrenConfig } from '../../config/wren-config.js';
import { pickEmbeddingEndpoint } from '../../llm/embedding-endpoint.js';
import { describeAt } from '../../proactive/describe-at.js';
import type {
  ConsolidationStatus,
  DatabaseSizeReport,
  ProactiveSummary,
  StatusService,
  UsageTotals,
} from '../../services/status-service.js';
import { ConfigError } from '../../util/config-error.js';
import { callGateway, findGateway } from '../gateway-client.js';
import { plural } from '../plural.js';
import { EXIT } from '../report-failure.js';
import { wren } from '../wren-command.js';
import { mcpServerStatuses } from './mcp.js';
import { serviceCheck } from './service.js';

/** What the running gateway reports of itself (`GET /api/status`), as far as status shows it. */
interface LiveStatus {
  pid?: number;
  uptimeSeconds?: number;
  configError?: string;
  turnsInFlight?: number;
  memoryMb?: { rss?: number };
  models?: Array<{ name: string; state?: string; coolingUntil?: number }>;
  scheduler?: { running?: boolean; nextDue?: number | null };
  channels?: Array<{ name: string; state: string; detail?: string }>;
  memorySearch?: { failures?: number; lastError?: string; unavailable?: string };
}

/**
 * Semantic memory search, when an embedding model is configured: what the home's database holds (plain SQL,
 * no extension needed) and, from a running gateway, whether embedding fails. Undefined without one.
 */
function memorySearchStatus(options: {
  config: WrenConfig;
  status: Pick<StatusService, 'embeddings'>;
  live: LiveStatus | undefined;
}) {
  const { config, status, live } = options;
  const endpoint = pickEmbeddingEndpoint(resolveEndpoints(config));
  if (!endpoint) return undefined;
  const { failures, lastError, unavailable } = live?.memorySearch ?? {};
  return {
    model: endpoint.model,
    ...status.embeddings(endpoint.model),
    ...(failures ? { failures } : {}),
    ...(lastError ? { lastError } : {}),
    ...(unavailable ? { unavailable } : {}),
  };
}

/** How many tables `wren status` names as taking the space. */
const TOP_TABLES = 4;

/** The database's size for `wren status`: the file (write-ahead log included), free space, the top tables. */
export function databaseSummary(report: DatabaseSizeReport) {
  return {
    bytes: report.fileBytes,
    walBytes: report.walBytes,
    freeBytes: report.freePages * report.pageSize,
    largest: report.tables.slice(0, TOP_TABLES),
  };
}

/** `12.3 MB on disk: messages 8.1 MB, message_search 3.0 MB, …; 1.0 MB write-ahead log; 1.2 MB free`. Pure. */
export function databaseLine(database: ReturnType<typeof databaseSummary>): string {
  const parts = [
    database.largest.map((table) => `${table.name} ${formatBytes(table.bytes)}`).join(', '),
    database.walBytes > 0 ? `${formatBytes(database.walBytes)} write-ahead log` : '',
    database.freeBytes > 0 ? `${formatBytes(database.freeBytes)} free` : '',
  ].filter(Boolean);
  return `${formatBytes(database.bytes)} on disk${parts.length ? `: ${parts.join('; ')}` : ''}`;
}

/** Bytes as B, KB, MB or GB (powers of 1024, one decimal from KB up). Pure. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

async function gatewayState(home: string) {
  const lookup = await findGateway(home);
  if (lookup.state === 'none') return { running: false as const };
  if (lookup.state === 'unverified')
    return {
      running: false as const,
      url: lookup.url,
      problem: `a gateway was recorded at ${lookup.url}, but ${lookup.reason}`,
    };
  const { link } = lookup;
  try {
    const { status, body } = await callGateway(link, 'GET', '/api/status');
    const live = status === 200 ? (body as LiveStatus) : undefined;
    return {
      running: true as const,
      url: link.url,
      version: link.version,
      pid: link.pid,
      ...(live ? { live } : {}),
    };
  } catch (error) {
    return { running: false as const, url: link.url, problem: (error as Error).message };
  }
}

/**
 * `wren status`: the gateway of this home (found through its `gateway.json`, verified before the local
 * token is sent) with what it reports live — a rejected config edit among it — then the models, sessions,
 * token usage, memory and MCP servers from the home itself.
 */
export async function runStatus(options: { home: string; json?: boolean }): Promise<number> {
  try {
    return await statusOf(options);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // config.yaml is broken right now: still say what the running gateway is doing (it keeps the last good
    // config), then the error, with the exit code of a config problem.
    const gateway = await gatewayState(options.home);
    if (options.json) {
      process.stdout.write(
        `${JSON.stringify({ home: options.home, gateway, configError: error.message }, null, 2)}\n`,
      );
    } else {
      printGateway(gateway);
      process.stdout.write(
        `config    INVALID, fix it (a running gateway keeps the last good one): ${error.message}\n`,
      );
    }
    return EXIT.usage;
  }
}

async function statusOf(options: { home: string; json?: boolean }): Promise<number> {
  return withHome(options.home, async (opened) => {
    const { config } = opened;
    const figures = opened.services().status;
    const gateway = await gatewayState(options.home);
    const startOfDay = new Date();
    startOfDay.setHours(0, 0, 0, 0);
    const service = serviceCheck(options.home);
    const status = {
      home: options.home,
      gateway,
      /** The systemd unit or launchd agent (`wren service`); null where neither exists. */
      service: service ? { status: service.status, message: service.message } : null,
      models: resolveEndpoints(config).map(({ name, protocol, model, baseUrl, tags, priority, enabled }) => ({
        name,
        protocol,
        model,
        baseUrl,
        tags,
        priority,
        enabled,
      })),
      sessions: figures.sessionCount(),
      usage: { today: figures.usage({ since: startOfDay.getTime() }), total: figures.usage() },
      consolidation: figures.consolidation(),
      database: databaseSummary(figures.database()),
      memorySearch: memorySearchStatus({
        config,
        status: figures,
        live: gateway.running ? gateway.live : undefined,
      }),
      proactive: { ...figures.proactive(), timezone: config.agent.timezone },
      channels: channelLines(config.channels, gateway.running ? gateway.live?.channels : undefined),
      mcp: (await mcpServerStatuses(options.home)).servers.map(({ name, state, display, tools }) => ({
        name,
        state,
        display,
        tools: tools.length,
      })),
    };
    if (options.json) {
      process.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
      return EXIT.ok;
    }
    printStatus(status);
    return EXIT.ok;
  });
}

function printGateway(gateway: Awaited<ReturnType<typeof gatewayState>>): void {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  if (gateway.running) {
    const live = gateway.live;
    const facts = [
      `pid ${gateway.pid}`,
      live?.uptimeSeconds !== undefined ? `up ${live.uptimeSeconds} s` : '',
      live?.memoryMb?.rss !== undefined ? `${live.memoryMb.rss} MB` : '',
      live?.turnsInFlight ? `${plural(live.turnsInFlight, 'turn')} running` : '',
    ].filter(Boolean);
    out(`gateway   running at ${gateway.url} (v${gateway.version}; ${facts.join(', ')})`);
    if (live?.configError)
      out(`config    EDIT REJECTED, the previous config is in force: ${live.configError}`);
  } else if ('problem' in gateway && gateway.problem) {
    out(`gateway   not reachable: ${gateway.problem}`);
  } else {
    out(`gateway   not running; start it with \`${wren()} start\``);
  }
}

function printStatus(status: {
  home: string;
  gateway: Awaited<ReturnType<typeof gatewayState>>;
  service: { status: string; message: string } | null;
  models: Array<{
    name: string;
    protocol: string;
    model: string;
    baseUrl: string;
    tags: readonly string[];
    priority: number;
    enabled: boolean;
  }>;
  sessions: number;
  usage: { today: UsageTotals; total: UsageTotals };
  consolidation: ConsolidationStatus;
  database: ReturnType<typeof databaseSummary>;
  memorySearch: ReturnType<typeof memorySearchStatus>;
  proactive: ProactiveSummary & { timezone: string };
  channels: Array<{ name: string; display: string }>;
  mcp: Array<{ name: string; display: string }>;
}): void {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`home      ${status.home}`);
  printGateway(status.gateway);
  if (status.service) out(`service   ${status.service.message}`);
  if (status.models.length === 0) out(`models    none configured: run \`${wren()} onboard\``);
  for (const model of status.models) {
    out(
      `model     ${model.name}: ${model.protocol} ${model.model} @ ${model.baseUrl} [${model.tags.join(', ')}] priority ${model.priority}${model.enabled ? '' : ' (disabled)'}`,
    );
  }
  out(`sessions  ${status.sessions}`);
  const { today, total } = status.usage;
  out(
    `tokens    today ${today.inputTokens} in / ${today.outputTokens} out (${plural(today.calls, 'call')}); all time ${total.inputTokens} in / ${total.outputTokens} out`,
  );
  const memory = status.consolidation;
  out(
    `memory    ${plural(memory.consolidatedMessages, 'message')} consolidated${memory.pending ? `; ${memory.pending} pending` : ''}${
      memory.failing.length
        ? `; consolidation FAILING for ${plural(memory.failing.length, 'session')}: ${memory.failing[0]!.lastError}`
        : ''
    }`,
  );
  out(`database  ${databaseLine(status.database)}`);
  const search = status.memorySearch;
  if (search)
    out(
      `search    keywords and meaning (${search.model}): ${plural(search.embedded, 'text')} embedded, ${plural(search.waiting, 'message')} waiting${
        search.failures ? `; embedding FAILING (${search.failures}×): ${search.lastError ?? ''}` : ''
      }${search.unavailable ? `; keywords only: ${search.unavailable}` : ''}`,
    );
  const { proactive } = status;
  const scheduler = status.gateway.running ? status.gateway.live?.scheduler : undefined;
  out(
    [
      `proactive ${plural(proactive.reminders, 'active reminder')}`,
      proactive.nextReminderAt ? ` (next ${describeAt(proactive.nextReminderAt, proactive.timezone)})` : '',
      `, ${plural(proactive.goals, 'active goal')}`,
      proactive.deliveriesWaiting
        ? `, ${plural(proactive.deliveriesWaiting, 'delivery')} waiting to be sent`
        : '',
      scheduler
        ? scheduler.running
          ? '; the gateway runs the scheduler'
          : '; scheduler NOT running here'
        : '',
    ].join(''),
  );
  for (const line of status.channels) out(`channel   ${line.name}: ${line.display}`);
  for (const server of status.mcp) out(`mcp       ${server.name}: ${server.display}`);
}

/** Each configured chat platform and how it is doing in the running gateway (or why it is not running). */
function channelLines(
  configured: ChannelsConfig,
  live: LiveStatus['channels'],
): Array<{ name: string; state: string; display: string }> {
  // Only the platforms: `channels:` also holds shared settings such as `transcription`.
  return platforms.flatMap(({ name }) => {
    const section = platformConfig(configured, name);
    if (!section) return [];
    const running = live?.find((channel) => channel.name === name);
    if (!section.enabled) return { name, state: 'disabled', display: 'disabled in config.yaml' };
    if (!running)
      return {
        name,
        state: 'not running',
        display: live ? 'not running (see logs/wren.log)' : 'starts with `wren start`',
      };
    return {
      name,
      state: running.state,
      display: running.detail ? `${running.state}: ${running.detail}` : running.state,
    };
  });
}
