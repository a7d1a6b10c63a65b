import { randomUUID } from 'node:crypto';
import { createApp } from '../../app/create-app.js';
import type { ChannelBus } from '../../channels/channel-bus.js';
import { TerminalChannel } from '../../channels/terminal/terminal-channel.js';
import { runTerminalChat } from '../../channels/terminal/terminal-chat.js';
import { callGateway, findGateway, type GatewayLink } from '../gateway-client.js';
import { noModelHelp } from '../no-model-help.js';
import { plural } from '../plural.js';
import { createRemoteChatBus } from '../remote-chat-bus.js';
import { EXIT } from '../report-failure.js';
import { wren } from '../wren-command.js';

export interface ChatOptions {
  home: string;
  message?: string;
  session?: string;
  json?: boolean;
}

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

/** How long a chat waits for MCP servers that are still connecting before its first turn. */
const MCP_WAIT_MS = 10_000;

/**
 * `wren chat` and `wren chat -m`. When `wren start` runs for this home, the chat attaches to it (same
 * sessions, MCP servers already connected, approvals routed through it); otherwise Wren runs in this
 * process. Resolves with the exit code.
 */
export async function runChat(options: ChatOptions): Promise<number> {
  const { home } = options;
  if (options.session !== undefined && !SESSION_ID.test(options.session)) {
    process.stderr.write(
      'wren: --session must be 1-128 letters, digits, _ . : - (starting with a letter or digit)\n',
    );
    return EXIT.usage;
  }
  // While the terminal chat runs, Ctrl+C is a keypress readline handles (it stops a reply, or leaves). Once
  // the chat has closed, the terminal turns Ctrl+C into SIGINT again: from then until this process ends
  // (while Wren closes, which may wait for a consolidation, or a gateway stream winds down) it leaves at once
  // with 0 — that work is crash-safe and resumes at the next start. The handler stays until exit: a second
  // Ctrl+C arriving after it was removed would kill the process with 130 instead.
  if (options.message === undefined) process.on('SIGINT', () => process.exit(EXIT.ok));
  const gateway = await findGateway(home);
  if (gateway.state === 'running') return attached(gateway.link, options);
  if (gateway.state === 'unverified') {
    // A Wren process of this home is alive: a second one here would run the same MCP servers and sessions.
    process.stderr.write(
      `wren: the gateway of this home (pid ${gateway.pid}) is recorded at ${gateway.url}, but ${gateway.reason}; wait for it, or stop it (kill ${gateway.pid}) and try again\n`,
    );
    return EXIT.failed;
  }
  return inProcess(options);
}

/**
 * Whether the running gateway has any model configured or found (`GET /api/status`), as the in-process chat
 * checks its own; true when it cannot tell, so such a gateway is still tried (and its error shown).
 */
async function gatewayHasChatModel(link: GatewayLink): Promise<boolean> {
  try {
    const { status, body } = await callGateway(link, 'GET', '/api/status');
    const models = (body as { models?: unknown }).models;
    return status !== 200 || !Array.isArray(models) || models.length > 0;
  } catch {
    return true;
  }
}

async function attached(link: GatewayLink, options: ChatOptions): Promise<number> {
  // The same message and exit code as without a gateway: nothing to chat with is the owner's to fix first.
  if (!(await gatewayHasChatModel(link))) {
    process.stderr.write(`wren: ${noModelHelp(options.home)}\n`);
    return EXIT.usage;
  }
  const bus = createRemoteChatBus(link, async () => {
    const again = await findGateway(options.home);
    return again.state === 'running' ? again.link : undefined;
  });
  if (options.message !== undefined) return oneShot(bus, options);
  const tty = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  await runTerminalChat({
    channel: new TerminalChannel({ bus, interactive: tty }),
    input: process.stdin,
    output: process.stdout,
    tty,
    ...(options.session ? { sessionId: options.session } : {}),
    banner: `Wren · attached to the running gateway at ${link.url} (pid ${link.pid}) · /help for commands, Ctrl+C to stop or leave`,
  });
  return EXIT.ok;
}

async function inProcess(options: ChatOptions): Promise<number> {
  const { home } = options;
  // With no gateway running, an interactive chat runs the home's scheduler (reminders must fire whichever
  // entry point runs); a one-shot run ends too soon to carry a run through.
  const app = await createApp({ home, scheduler: options.message === undefined ? 'try' : 'off' });
  if (app.endpoints().length === 0) {
    await app.close(0);
    process.stderr.write(`wren: ${noModelHelp(home)}\n`);
    return EXIT.usage;
  }
  if (app.modelNote) process.stderr.write(`${app.modelNote}\n`);
  for (const line of app.upgraded) process.stderr.write(`wren: ${line}\n`);
  for (const path of app.madePrivate)
    process.stderr.write(`wren: ${path} was readable by others; made it private\n`);
  try {
    const waiting = await app.mcpSettled(MCP_WAIT_MS);
    if (waiting.length > 0)
      process.stderr.write(
        `wren: ${waiting.length === 1 ? 'an MCP server is' : 'MCP servers are'} still connecting, their tools come later: ${waiting.join(', ')}\n`,
      );
    if (options.message !== undefined) {
      const code = await oneShot(app.bus, options);
      const working = app.subagents
        .list()
        .filter((info) => info.state === 'running' || info.state === 'queued');
      if (working.length > 0)
        process.stderr.write(
          `wren: ${plural(working.length, 'subagent')} ${working.length === 1 ? 'was' : 'were'} still working and stop with this run; background work needs \`${wren()} start\` (or \`${wren()} chat\`)\n`,
        );
      return code;
    }
    const tty = Boolean(process.stdin.isTTY && process.stdout.isTTY);
    const channel = new TerminalChannel({
      bus: app.bus,
      interactive: tty,
      onError: (error) => app.logger.warn({ err: error }, 'terminal delivery failed'),
    });
    const unregister = app.channels.register(channel);
    await runTerminalChat({
      channel,
      input: process.stdin,
      output: process.stdout,
      tty,
      ...(options.session ? { sessionId: options.session } : {}),
      banner: `Wren · models: ${app
        .endpoints()
        .map((endpoint) => `${endpoint.name} (${endpoint.model})`)
        .join(', ')} · /help for commands, Ctrl+C to stop or leave`,
    });
    unregister();
    return EXIT.ok;
  } finally {
    if (options.message === undefined && process.stdout.isTTY)
      process.stdout.write('Closing Wren… (Ctrl+C again leaves at once)\n');
    await app.close(5_000);
  }
}

/** Where a one-shot run writes (the process streams, or buffers in tests). */
export interface OneShotOutput {
  stdout: Pick<NodeJS.WritableStream, 'write'>;
  stderr: Pick<NodeJS.WritableStream, 'write'>;
}

/**
 * `wren chat -m`: one turn, the reply on stdout. Nobody can be asked for approvals, so the gate denies such
 * calls at once; each denial is also named on stderr. Resolves with the exit code.
 */
export async function oneShot(
  bus: ChannelBus,
  options: Omit<ChatOptions, 'home'>,
  io: OneShotOutput = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const text = options.message?.trim() ?? '';
  if (!text) {
    io.stderr.write('wren: -m needs a non-empty message\n');
    return EXIT.usage;
  }
  const session = options.session ?? randomUUID();
  const channel = new TerminalChannel({ bus, interactive: false });
  const outbound = await channel.once(text, session, (tool) =>
    io.stderr.write(
      `wren: denied ${tool}: it needs your approval and \`wren chat -m\` cannot ask; run it in \`wren chat\`, or allow it with a gate rule in config.yaml\n`,
    ),
  );
  if (options.json) {
    const body =
      outbound.kind === 'error'
        ? { error: outbound.text, session }
        : { reply: outbound.text, session, usage: outbound.usage };
    io.stdout.write(`${JSON.stringify(body)}\n`);
  } else if (outbound.kind !== 'error') {
    io.stdout.write(`${outbound.text}\n`);
  }
  if (outbound.kind === 'error') {
    io.stderr.write(`wren: ${outbound.text.split('\n')[0]}\n`);
    return EXIT.failed;
  }
  return EXIT.ok;
}
