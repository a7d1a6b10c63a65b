import { createApp } from '../../app.js';
import { checkSandbox, resolveSandbox } from '../../tools/exec/sandbox.js';
import { noModelHelp } from '../local-model-fallback.js';

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
    throw error;
  }
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const warn = (line: string) => process.stderr.write(`wren: ${line}\n`);
  const names = app.endpoints().map((endpoint) => `${endpoint.name} (${endpoint.model})`);
  out(`Wren ${options.version} · home ${home}`);
  if (names.length > 0) out(`  models: ${names.join(', ')}`);
  if (app.modelNote) out(app.modelNote);
  else if (names.length === 0) out(noModelHelp(home));
  for (const path of app.madePrivate) warn(`${path} was readable by others; made it private`);
  const exec = app.config().tools.exec;
  if (exec.enabled) {
    const sandbox = resolveSandbox(exec.sandbox, await checkSandbox());
    if (sandbox.refused) warn(`exec will refuse to run commands: ${sandbox.reason}`);
    else if (sandbox.mode === 'none' && exec.sandbox === 'auto')
      warn(`exec runs commands WITHOUT a sandbox: ${sandbox.reason}`);
  }
  if (gateway.generatedToken) {
    out(
      `  gateway token (shown once; keep it, \`wren token --rotate\` makes a new one): ${gateway.generatedToken}`,
    );
  }
  out('  chat here with `wren chat` (in another terminal); stop with Ctrl+C');
  // Printed, never logged: the link signs a browser in (once, within 10 minutes).
  out(`  web app: ${gateway.signInLink()}  (one-time sign-in link; \`wren web open\` makes another)`);
  out(`Listening on ${gateway.url}`);
  app.logger.info({ url: gateway.url, models: names }, 'gateway started');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    out(`\n${signal}: finishing running replies (up to ${DRAIN_MS / 1000} s)…`);
    app.logger.info({ signal }, 'shutting down');
    await app.close(DRAIN_MS);
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}
