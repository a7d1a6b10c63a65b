import { join } from 'node:path';
import { ensureHome } from '../../config/home.js';
import { loadConfig, resolveEndpoints } from '../../config/load-config.js';
import { consolidationStatus } from '../../store/consolidation-status-repository.js';
import { openDatabase } from '../../store/open-database.js';
import { usageTotals } from '../../store/usage-repository.js';
import { EXIT } from '../report-failure.js';
import { mcpServerStatuses } from './mcp.js';

/** Asks the configured gateway address whether a Wren answers there. */
async function probeGateway(host: string, port: number): Promise<{ running: boolean; version?: string }> {
  const origin = `http://${host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  try {
    const response = await fetch(`${origin}/api/health`, { signal: AbortSignal.timeout(800) });
    const body = (await response.json()) as { ok?: boolean; version?: string };
    return body.ok
      ? { running: true, ...(body.version ? { version: body.version } : {}) }
      : { running: false };
  } catch {
    return { running: false };
  }
}

/** `wren status`: gateway up or not, models, sessions, token usage (today and in all). */
export async function runStatus(options: { home: string; json?: boolean }): Promise<number> {
  ensureHome(options.home);
  const config = loadConfig(options.home);
  const db = openDatabase(join(options.home, 'wren.db'));
  try {
    const gateway = await probeGateway(config.gateway.host, config.gateway.port);
    const startOfDay = new Date();
    startOfDay.setHours(0, 0, 0, 0);
    const status = {
      home: options.home,
      gateway: { ...gateway, url: `http://${config.gateway.host}:${config.gateway.port}` },
      models: resolveEndpoints(config).map(({ name, protocol, model, baseUrl, tags, priority, enabled }) => ({
        name,
        protocol,
        model,
        baseUrl,
        tags,
        priority,
        enabled,
      })),
      sessions: (db.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n,
      usage: { today: usageTotals(db, { since: startOfDay.getTime() }), total: usageTotals(db) },
      consolidation: consolidationStatus(db),
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
    const out = (line: string) => process.stdout.write(`${line}\n`);
    out(`home      ${status.home}`);
    out(
      `gateway   ${gateway.running ? `running at ${status.gateway.url} (v${gateway.version ?? '?'})` : `not running (${status.gateway.url}); start it with \`wren start\``}`,
    );
    if (status.models.length === 0) out('models    none configured: run `wren onboard`');
    for (const model of status.models) {
      out(
        `model     ${model.name}: ${model.protocol} ${model.model} @ ${model.baseUrl} [${model.tags.join(', ')}] priority ${model.priority}${model.enabled ? '' : ' (disabled)'}`,
      );
    }
    out(`sessions  ${status.sessions}`);
    const { today, total } = status.usage;
    out(
      `tokens    today ${today.inputTokens} in / ${today.outputTokens} out (${today.calls} calls); all time ${total.inputTokens} in / ${total.outputTokens} out`,
    );
    const memory = status.consolidation;
    out(
      `memory    ${memory.consolidatedMessages} messages consolidated${memory.pending ? `; ${memory.pending} pending` : ''}${
        memory.failing.length
          ? `; consolidation FAILING for ${memory.failing.length} session(s): ${memory.failing[0]!.lastError}`
          : ''
      }`,
    );
    for (const server of status.mcp) out(`mcp       ${server.name}: ${server.display}`);
    return EXIT.ok;
  } finally {
    db.close();
  }
}
