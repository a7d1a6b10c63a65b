#!/usr/bin/env node
import './memory-flags.js';
import { Command, CommanderError, Option } from 'commander';
import { resolveHome } from '../config/home.js';
import { wrenVersion } from '../util/wren-version.js';
import { registerBackupCommands } from './commands/backup.js';
import { registerChannelCommands } from './commands/channels.js';
import { registerGateCommands } from './commands/gate.js';
import { registerGoalCommands } from './commands/goals.js';
import { registerHookCommands } from './commands/hooks.js';
import { registerJobCommands } from './commands/jobs.js';
import { registerMailCommands } from './commands/mail.js';
import { registerMcpCommands } from './commands/mcp.js';
import { registerMemoryCommands } from './commands/memory.js';
import { registerPairingCommands } from './commands/pairing.js';
import { registerReminderCommands } from './commands/reminders.js';
import { registerServiceCommands } from './commands/service.js';
import { registerSubagentCommands } from './commands/subagents.js';
import { registerVaultCommands } from './commands/vault.js';
import { registerWebCommands } from './commands/web.js';
import { EXIT, reportFailure } from './report-failure.js';
import { wholeNumber } from './whole-number.js';

const VERSION = wrenVersion();

// `wren doctor | head` closes the pipe early: that is the reader's choice, not a failure.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? EXIT.ok);
    throw error;
  });
}

const program = new Command('wren')
  .description('Wren: a self-hosted personal AI assistant')
  .version(VERSION)
  .addOption(new Option('--home <dir>', 'Wren home folder').env('WREN_HOME'))
  .showHelpAfterError('(run wren --help for usage)')
  // Usage errors exit 2 (as documented), help and --version 0: commander would exit 1 for both.
  .exitOverride((error) => {
    throw error;
  });

const home = () => resolveHome({ ...process.env, WREN_HOME: program.opts<{ home?: string }>().home });

program
  .command('start')
  .description(
    'start Wren: the gateway (HTTP API on 127.0.0.1), the scheduler and the chat channels in config.yaml',
  )
  .option('--host <host>', 'address to listen on (default gateway.host, 127.0.0.1)')
  .option('--port <port>', 'port to listen on (default gateway.port, 7777)', (value) =>
    wholeNumber(value, 0, 65_535),
  )
  .action(async (options: { host?: string; port?: number }) => {
    const { runStart } = await import('./commands/start.js');
    await runStart({ home: home(), version: VERSION, ...options });
  });

program
  .command('chat')
  .description('chat in the terminal; with -m, send one message, print the reply and exit')
  .option('-m, --message <text>', 'send one message and exit')
  .option('--session <id>', 'continue this session')
  .option('--json', 'with -m: print {reply, session, usage} as JSON')
  .action(async (options: { message?: string; session?: string; json?: boolean }) => {
    const { runChat } = await import('./commands/chat.js');
    process.exitCode = await runChat({ home: home(), ...options });
  });

program
  .command('status')
  .description('show whether the gateway runs, the models, sessions and token usage')
  .option('--json', 'print JSON')
  .action(async (options: { json?: boolean }) => {
    const { runStatus } = await import('./commands/status.js');
    process.exitCode = await runStatus({ home: home(), ...options });
  });

program
  .command('doctor')
  .description('check the home folder, config, database and models')
  .option('--json', 'print JSON')
  .option('--security', 'run the security audit instead (same as `wren security audit`)')
  .action(async (options: { json?: boolean; security?: boolean }) => {
    if (options.security) {
      const { runSecurityAudit } = await import('./commands/gate.js');
      process.exitCode = await runSecurityAudit({ home: home(), ...(options.json ? { json: true } : {}) });
      return;
    }
    const { runDoctor } = await import('./commands/doctor.js');
    process.exitCode = await runDoctor({ home: home(), ...options });
  });

const models = program
  .command('models')
  .description('list and test the configured models; sign in to GitHub Copilot');
models
  .command('list', { isDefault: true })
  .description('list configured models and provider presets')
  .action(async () => {
    const { runModelsList } = await import('./commands/models.js');
    process.exitCode = await runModelsList({ home: home() });
  });
models
  .command('test [name]')
  .description('send a tiny request to each model (or the named one) and report latency or the exact error')
  .action(async (name: string | undefined) => {
    const { runModelsTest } = await import('./commands/models.js');
    process.exitCode = await runModelsTest({ home: home(), ...(name ? { name } : {}) });
  });
models
  .command('login <provider>')
  .description(
    'sign in to a provider that uses an account instead of an API key: `copilot` (GitHub Copilot, through ' +
      "GitHub's device flow); the GitHub token is saved to <home>/.env as WREN_COPILOT_GITHUB_TOKEN",
  )
  .option(
    '--client-id <id>',
    'OAuth client id (default: the Copilot editor integration; env WREN_COPILOT_CLIENT_ID)',
  )
  .option(
    '--github-url <url>',
    'GitHub address for the device flow (default https://github.com; env WREN_COPILOT_GITHUB_URL)',
  )
  .option(
    '--token-url <url>',
    'Copilot token exchange (default https://api.github.com/copilot_internal/v2/token; env WREN_COPILOT_TOKEN_URL)',
  )
  .action(async (provider: string, options: { clientId?: string; githubUrl?: string; tokenUrl?: string }) => {
    const { runModelsLogin } = await import('./commands/models-login.js');
    process.exitCode = await runModelsLogin({ home: home(), provider, ...options });
  });

program
  .command('onboard')
  .description('add a model interactively, testing it before saving')
  .action(async () => {
    const { runOnboard } = await import('./commands/onboard.js');
    process.exitCode = await runOnboard({ home: home() });
  });

program
  .command('token')
  .description('manage the gateway bearer token')
  .requiredOption('--rotate', 'replace the token with a new one and print it once')
  .action(async () => {
    const { runTokenRotate } = await import('./commands/token.js');
    process.exitCode = await runTokenRotate({ home: home() });
  });

registerGateCommands(program, home);
registerMemoryCommands(program, home);
registerMcpCommands(program, home);
registerSubagentCommands(program, home);
registerReminderCommands(program, home);
registerJobCommands(program, home);
registerHookCommands(program, home);
registerGoalCommands(program, home);
registerPairingCommands(program, home);
registerChannelCommands(program, home);
registerMailCommands(program, home);
registerWebCommands(program, home);
registerServiceCommands(program, home);
registerBackupCommands(program, home);
registerVaultCommands(program, home);

// Subcommands inherit the override only when they are created after it: apply it to every one.
for (const command of allCommands(program)) {
  command.exitOverride((error) => {
    throw error;
  });
}

function allCommands(root: Command): Command[] {
  return root.commands.flatMap((command) => [command, ...allCommands(command)]);
}

program.parseAsync().catch((error: unknown) => {
  if (error instanceof CommanderError) {
    // commander has already printed the message (and usage hint); only the exit code is ours.
    const benign = ['commander.helpDisplayed', 'commander.help', 'commander.version'].includes(error.code);
    process.exitCode = benign ? EXIT.ok : EXIT.usage;
    return;
  }
  process.exitCode = reportFailure(error);
});
