import { createApp } from '../../app/create-app.js';
import { checkSandbox, resolveSandbox } from '../../tools/exec/sandbox.js';
import { noModelHelp } from '../no-model-help.js';
import { MustFixError } from '../report-failure.js';
import { wren } from '../wren-command.js';

export interface StartOptions {
  home: string;
  version: string;
  host?: string;
  port?: number;
}

/** How long SIGTERM waits for running turns before cancelling them. */
const DRAIN_MS = 10_000;

/**
 * `wren start`: the long-running process, in the foreground. Takes the home lock, serves the HTTP API and
 * applies config edits live. SIGTERM/SIGINT drain in-flight turns (bounded), close everything and exit 0.
 */
export async function runStart(options: StartOptions): Promise<void> {
  const { home } = options;
  const app = await createApp({ home, lock: true, watch: true, scheduler: 'run', channels: true });
  let gateway: Awaited<ReturnType<typeof app.serve>>;
  try {
    gateway = await app.serve({
      version: options.version,
      ...(options.host !== undefined ? { host: options.host } : {}),
      ...(options.port !== undefined ? { port: options.port } : {}),
    });
  } catch (error) {
    await app.close(0);
    // The port is taken (or not ours to bind): the owner must free it or pick another one first.
    if (error instanceof Error && error.message.startsWith('The gateway could not listen'))
      throw new MustFixError(
        error.message.includes('--port')
          ? error.message
          : `${error.message} Choose another port with --port.`,
      );
    throw error;
  }
  const warnings = await startWarnings(app);
  for (const line of warnings) process.stderr.write(`wren: ${line}\n`);
  for (const line of banner({ ...options, app, gateway })) process.stdout.write(`${line}\n`);
  app.logger.info({ url: gateway.url, models: app.endpoints().map(({ name }) => name) }, 'gateway started');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: finishing running replies (up to ${DRAIN_MS / 1000} s)…\n`);
    app.logger.info({ signal }, 'shutting down');
    await app.close(DRAIN_MS);
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

type App = Awaited<ReturnType<typeof createApp>>;

/** What the owner should know before trusting this run: files made private, the exec sandbox. */
async function startWarnings(app: App): Promise<string[]> {
  const lines = app.madePrivate.map((path) => `${path} was readable by others; made it private`);
  lines.push(...app.upgraded);
  const exec = app.config().tools.exec;
  if (exec.enabled) {
    const sandbox = resolveSandbox(exec.sandbox, await checkSandbox());
    if (sandbox.refused) lines.push(`exec will refuse to run commands: ${sandbox.reason}`);
    else if (sandbox.mode === 'none' && exec.sandbox === 'auto')
      lines.push(`exec runs commands WITHOUT a sandbox: ${sandbox.reason}`);
  }
  return lines;
}

/**
 * The start banner: what runs, then each way in — the web app's one-time link, the token (when generated
 * now), the terminal — with commands as this shell runs them (`./wren …` in a clone), and the address last
 * (scripts wait for "Listening on"). The link and the token are printed, never logged.
 */
function banner(options: {
  home: string;
  version: string;
  app: App;
  gateway: Awaited<ReturnType<App['serve']>>;
}): string[] {
  const { app, gateway } = options;
  const command = wren();
  const names = app.endpoints().map((endpoint) => `${endpoint.name} (${endpoint.model})`);
  const lines = [`Wren ${options.version} · home ${options.home}`];
  if (names.length > 0) lines.push(`  models: ${names.join(', ')}`);
  if (app.modelNote) lines.push(app.modelNote);
  else if (names.length === 0) lines.push(noModelHelp(options.home, command));
  lines.push(
    `  web app: ${gateway.signInLink()}`,
    `    (a one-time sign-in link, valid for 10 minutes; \`${command} web open\` makes another)`,
  );
  if (gateway.generatedToken)
    lines.push(
      `  gateway token for the HTTP API (shown once; keep it, \`${command} token --rotate\` makes a new one): ${gateway.generatedToken}`,
    );
  lines.push(
    `  terminal chat: \`${command} chat\` in another terminal`,
    `Listening on ${gateway.url} (stop with Ctrl+C)`,
  );
  return lines;
}
