import type { Command } from 'commander';
import { callGateway, findGateway, type GatewayLink } from '../gateway-client.js';
import { EXIT } from '../report-failure.js';

/** The running gateway of the home (subagents live in its process), or undefined after saying why. */
async function gatewayOf(home: string): Promise<GatewayLink | undefined> {
  const lookup = await findGateway(home);
  if (lookup.state === 'running') return lookup.link;
  process.stderr.write(
    lookup.state === 'none'
      ? 'wren: subagents run inside the gateway, and no gateway runs for this home; start it with `wren start`\n'
      : `wren: a gateway was recorded at ${lookup.url}, but ${lookup.reason}; nothing was sent\n`,
  );
  process.exitCode = EXIT.failed;
  return undefined;
}

/**
 * `wren subagents [list]` and `wren subagents cancel ID`: asks this home's running gateway, found and verified
 * through its `gateway.json` (no token needed).
 */
export function registerSubagentCommands(program: Command, home: () => string): void {
  const group = program.command('subagents').description('background subagents of the running gateway');
  group
    .command('list', { isDefault: true })
    .description('list running and recent subagents')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const link = await gatewayOf(home());
      if (!link) return;
      const { status, body } = await callGateway(link, 'GET', '/api/subagents');
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
    .action(async (id: string) => {
      const link = await gatewayOf(home());
      if (!link) return;
      const { status } = await callGateway(link, 'DELETE', `/api/subagents/${encodeURIComponent(id)}`);
      if (status === 200) process.stdout.write(`Cancelling subagent ${id}.\n`);
      else {
        process.stderr.write(`wren: no running subagent ${id}\n`);
        process.exitCode = EXIT.failed;
      }
    });
}
