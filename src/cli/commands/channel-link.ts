import { renderUnicodeCompact } from 'uqr';
import type { ChannelStatus } from '../../channels/channel.js';
import { registeredPlatforms } from '../../channels/channels-config.js';
import { callGateway, findGateway, type GatewayLink } from '../gateway-client.js';
import { EXIT } from '../report-failure.js';
import { wren } from '../wren-command.js';

/** Where the commands write (the process's streams; a test passes its own). */
export interface LinkIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

export interface LinkOptions {
  home: string;
  name: string;
  /** Link by pairing code for this phone number instead of a QR code. */
  phone?: string;
  /** Give up waiting after this long (default three minutes); the channel itself keeps waiting. */
  timeoutMs?: number;
  /** How often the gateway is asked how linking goes (default one second). */
  pollMs?: number;
  io?: LinkIo;
  /** Stops the wait (Ctrl-C): resolves with exit code 1. */
  signal?: AbortSignal;
}

const DEFAULT_TIMEOUT_MS = 180_000;
const PHONE_STEPS: Record<string, { qr: string; code: string }> = {
  whatsapp: {
    qr: 'On your phone: WhatsApp → Settings → Linked devices → Link a device, then scan this code:',
    code: 'On your phone: WhatsApp → Settings → Linked devices → Link a device → Link with phone number instead, then type:',
  },
};

type Reached = { ok: true; link: GatewayLink } | { ok: false; code: number };

function unknownChannel(name: string, io: LinkIo): number {
  io.stderr.write(
    `wren: no channel named ${name} (channels: ${registeredPlatforms.map((entry) => entry.name).join(', ')})\n`,
  );
  return EXIT.usage;
}

/** The running gateway of `home`, or the exit code after saying why there is none to talk to. */
async function reachGateway(home: string, io: LinkIo): Promise<Reached> {
  const lookup = await findGateway(home);
  if (lookup.state === 'running') return { ok: true, link: lookup.link };
  io.stderr.write(
    lookup.state === 'none'
      ? `wren: Wren is not running. Start it with \`${wren()} start\` (or \`${wren()} service start\`), then run this again.\n`
      : `wren: a gateway was recorded at ${lookup.url}, but ${lookup.reason}; restart Wren and try again.\n`,
  );
  return { ok: false, code: EXIT.failed };
}

/** The gateway's answer as an exit code, printing its message when it refused. */
function refusal(status: number, body: unknown, io: LinkIo): number | undefined {
  if (status === 200) return undefined;
  const message =
    (body as { error?: { message?: string } }).error?.message ?? `the gateway answered ${status}`;
  io.stderr.write(`wren: ${message}\n`);
  return status === 404 || status === 400 ? EXIT.usage : EXIT.failed;
}

async function channelStatus(link: GatewayLink, name: string): Promise<ChannelStatus | undefined> {
  const { body } = await callGateway(link, 'GET', '/api/status');
  return (body as { channels?: ChannelStatus[] }).channels?.find((channel) => channel.name === name);
}

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((done) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        done();
      },
      { once: true },
    );
  });

/**
 * `wren channels link NAME [--phone N]`: asks the running gateway to start linking, then shows each QR code
 * (drawn in the terminal) or the pairing code as the platform issues them, until the channel is connected
 * (exit 0), logged out or failed (1), the wait times out (1) or the owner stops it (1).
 */
export async function linkChannel(options: LinkOptions): Promise<number> {
  const io = options.io ?? process;
  const { name } = options;
  if (!registeredPlatforms.some((entry) => entry.name === name)) return unknownChannel(name, io);
  const reached = await reachGateway(options.home, io);
  if (!reached.ok) return reached.code;
  const body = options.phone ? { method: 'code', phone: options.phone } : { method: 'qr' };
  const started = await callGateway(reached.link, 'POST', `/api/channels/${name}/link`, body);
  const refused = refusal(started.status, started.body, io);
  if (refused !== undefined) return refused;

  const steps = PHONE_STEPS[name] ?? {
    qr: 'Scan this code with the app:',
    code: 'Type this code in the app:',
  };
  const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  let shown: string | undefined;
  io.stdout.write(`Linking ${name}; waiting for the code…\n`);
  while (!options.signal?.aborted) {
    const status = await channelStatus(reached.link, name);
    if (!status) {
      io.stderr.write(`wren: the ${name} channel stopped while linking (see logs/wren.log).\n`);
      return EXIT.failed;
    }
    if (status.state === 'connected') {
      io.stdout.write(`Linked: ${name} is connected. Try it: \`${wren()} channels test ${name}\`.\n`);
      return EXIT.ok;
    }
    if (status.state === 'logged-out' || status.state === 'failed') {
      io.stderr.write(`wren: ${name} ${status.state}${status.detail ? `: ${status.detail}` : ''}\n`);
      return EXIT.failed;
    }
    const current = status.link?.code ?? status.link?.qr;
    if (status.state === 'linking' && current && current !== shown) {
      shown = current;
      if (status.link?.code) io.stdout.write(`${steps.code}\n\n    ${status.link.code}\n\n`);
      else io.stdout.write(`${steps.qr}\n${renderUnicodeCompact(current, { border: 2 })}\n`);
      io.stdout.write(
        'Waiting for the phone… (a fresh code replaces this one when it expires; Ctrl-C stops)\n',
      );
    }
    if (Date.now() >= deadline) {
      io.stderr.write(
        `wren: gave up waiting; ${name} still waits to be linked (run this again for a fresh code, or use Settings in the web app).\n`,
      );
      return EXIT.failed;
    }
    await pause(options.pollMs ?? 1000, options.signal);
  }
  io.stderr.write('wren: stopped waiting; linking goes on in Wren until the code expires.\n');
  return EXIT.failed;
}

/** `wren channels unlink NAME`: logs the linked device out on the platform and forgets its session. */
export async function unlinkChannel(options: { home: string; name: string; io?: LinkIo }): Promise<number> {
  const io = options.io ?? process;
  if (!registeredPlatforms.some((entry) => entry.name === options.name))
    return unknownChannel(options.name, io);
  const reached = await reachGateway(options.home, io);
  if (!reached.ok) return reached.code;
  const answer = await callGateway(reached.link, 'POST', `/api/channels/${options.name}/unlink`, {});
  const refused = refusal(answer.status, answer.body, io);
  if (refused !== undefined) return refused;
  io.stdout.write(
    `Unlinked: ${options.name} is logged out and its session forgotten. Link again with \`${wren()} channels link ${options.name}\`.\n`,
  );
  return EXIT.ok;
}

/** `wren channels test NAME`: sends the owner a test message there and reports what the platform said. */
export async function testChannel(options: { home: string; name: string; io?: LinkIo }): Promise<number> {
  const io = options.io ?? process;
  if (!registeredPlatforms.some((entry) => entry.name === options.name))
    return unknownChannel(options.name, io);
  const reached = await reachGateway(options.home, io);
  if (!reached.ok) return reached.code;
  const answer = await callGateway(reached.link, 'POST', `/api/channels/${options.name}/test`, {}, 30_000);
  const refused = refusal(answer.status, answer.body, io);
  if (refused !== undefined) return refused;
  const { chatId } = answer.body as { chatId?: string };
  io.stdout.write(`Sent a test message to you on ${options.name} (chat ${chatId}). Did it arrive?\n`);
  return EXIT.ok;
}
