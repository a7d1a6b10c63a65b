import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { callGateway, findGateway } from '../gateway-client.js';
import { EXIT } from '../report-failure.js';
import { wren } from '../wren-command.js';

/** The program that opens a URL in the desktop's browser, per platform. */
function opener(): { command: string; args: string[] } | undefined {
  if (process.platform === 'darwin') return { command: 'open', args: [] };
  if (process.platform === 'win32') return { command: 'cmd', args: ['/c', 'start', ''] };
  if (process.env['DISPLAY'] || process.env['WAYLAND_DISPLAY']) return { command: 'xdg-open', args: [] };
  return undefined;
}

/**
 * `wren web open [--print]`: asks this home's running gateway for a one-time sign-in link (valid 10 minutes,
 * usable once) and opens it in the browser, or prints it (`--print`, or when there is no desktop to open it
 * on). Exit codes: 0 ok, 1 no gateway runs or it refused.
 */
export function registerWebCommands(program: Command, home: () => string): void {
  program
    .command('web')
    .description('the web app')
    .command('open')
    .description('open the web app, signed in (a one-time link to the running gateway)')
    .option('--print', 'print the link instead of opening a browser')
    .action(async (options: { print?: boolean }) => {
      const found = await findGateway(home());
      if (found.state !== 'running') {
        process.stderr.write(
          found.state === 'none'
            ? `wren: no gateway runs for this home; start one with \`${wren()} start\`\n`
            : `wren: the gateway at ${found.url} could not be verified: ${found.reason}\n`,
        );
        process.exitCode = EXIT.failed;
        return;
      }
      const answer = await callGateway(found.link, 'POST', '/api/session/link');
      const url = (answer.body as { url?: unknown }).url;
      if (answer.status !== 200 || typeof url !== 'string') {
        process.stderr.write(`wren: the gateway refused to make a sign-in link (HTTP ${answer.status})\n`);
        process.exitCode = EXIT.failed;
        return;
      }
      const browser = options.print ? undefined : opener();
      if (browser) {
        const child = spawn(browser.command, [...browser.args, url], { detached: true, stdio: 'ignore' });
        child.on('error', () => process.stdout.write(`${url}\n`));
        child.unref();
        process.stderr.write('Opening the web app (the link works once, for 10 minutes)…\n');
        return;
      }
      process.stdout.write(`${url}\n`);
      process.stderr.write('One-time sign-in link above: open it within 10 minutes; it works once.\n');
    });
}
