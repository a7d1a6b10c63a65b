import type { Command } from 'commander';
import { EXIT } from '../report-failure.js';

interface Options {
  home: string;
  token?: string;
  url?: string;
  json?: boolean;
}

/** Talks to the running gateway (subagents live in its process); the token comes from --token or the env. */
async function callGateway(
  options: Options,
  method: 'GET' | 'DELETE',
  path: string,
): Promise<{ status: number; body: unknown }> {
  const { loadConfig } = await import('../../config/load-config.js');
  const { ensureHome } = await import('../../config/home.js');
  ensureHome(options.home);
  const config = loadConfig(options.home);
  const token = options.token ?? config.gateway.token ?? process.env['WREN_GATEWAY_TOKEN'];
  if (!token)
    throw new Error(
      'subagents live in the running gateway: pass its token with --token or WREN_GATEWAY_TOKEN',
    );
  const host = config.gateway.host === '0.0.0.0' ? '127.0.0.1' : config.gateway.host;
  const origin =
    options.url?.replace(/\/+$/, '') ??
    `http://${host.includes(':') ? `[${host}]` : host}:${config.gateway.port}`;
  const url = `${origin}${path}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(5000),
    });
  } catch {
    throw new Error(`no gateway answers at ${url}; start it with \`wren start\``);
  }
  return { status: response.status, body: await response.json().catch(() => ({})) };
}

/** `wren subagents [list]` and `wren subagents cancel ID`. */
export function registerSubagentCommands(program: Command, home: () => string): void {
  const group = program.command('subagents').description('background subagents of the running gateway');
  group
    .command('list', { isDefault: true })
    .description('list running and recent subagents')
    .option('--token <token>', 'the gateway token (default: gateway.token or WREN_GATEWAY_TOKEN)')
    .option('--url <url>', 'the gateway (default: gateway.host and gateway.port)')
    .option('--json', 'print JSON')
    .action(async (options: { token?: string; url?: string; json?: boolean }) => {
      const { status, body } = await callGateway({ home: home(), ...options }, 'GET', '/api/subagents');
      if (status !== 200) {
        process.stderr.write(`wren: the gateway answered ${status}: ${JSON.stringify(body)}\n`);
        process.exitCode = EXIT.failed;
        return;
      }
      const list = (body as { subagents: Array<{ id: string; state: string; task: string }> }).subagents;
      if (options.json) process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
      else if (list.length === 0) process.stdout.write('No subagents.\n');
      else
        for (const item of list)
          process.stdout.write(`${item.id}  ${item.state.padEnd(9)}  ${item.task.slice(0, 80)}\n`);
    });
  group
    .command('cancel <id>')
    .description('cancel a queued or running subagent')
    .option('--token <token>', 'the gateway token (default: gateway.token or WREN_GATEWAY_TOKEN)')
    .option('--url <url>', 'the gateway (default: gateway.host and gateway.port)')
    .action(async (id: string, options: { token?: string; url?: string }) => {
      const { status } = await callGateway(
        { home: home(), ...options },
        'DELETE',
        `/api/subagents/${encodeURIComponent(id)}`,
      );
      if (status === 200) process.stdout.write(`Cancelling subagent ${id}.\n`);
      else {
        process.stderr.write(`wren: no running subagent ${id}\n`);
        process.exitCode = EXIT.failed;
      }
    });
}
