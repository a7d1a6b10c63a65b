import type { Logger, SocketModeClient } from '@slack/socket-mode';

/**
 * One Socket Mode envelope, already acked: its type (`events_api`, `interactive`, …) and payload. A
 * redelivery (`retry_attempt` > 0, Slack's `x-slack-retry-num` over HTTP) comes through like the first
 * delivery: the ledger's first-seen check on the message's `ts` makes it a no-op.
 */
export interface SlackEnvelope {
  type: string;
  payload: unknown;
}

export interface SlackSocketOptions {
  /** The package's client class, imported by the caller (lazily: only when Slack is configured). */
  SocketModeClient: typeof SocketModeClient;
  appToken: string;
  apiUrl: string;
  logger: Logger;
  /** Each envelope, after its ack went out; a throw is passed to `onError`, never back to the socket. */
  onEnvelope: (envelope: SlackEnvelope) => Promise<void>;
  onError: (error: unknown) => void;
}

/** How long one `apps.connections.open` may take before the attempt counts as failed. */
const OPEN_TIMEOUT_MS = 30_000;

/**
 * One Socket Mode connection (the `session` of `keepConnected`): opens the socket with the app-level token
 * (`apps.connections.open`, then the WebSocket it names), calls `connected` on Slack's `hello`, acks every
 * envelope by its `envelope_id` as it arrives (Slack redelivers what is not acked within 3 s), hands it on,
 * and resolves when the socket closes or `signal` aborts, the socket then closed. Throws when it could not
 * connect (a refused token: a `WebAPIPlatformError` with `data.error`).
 *
 * The client's own reconnecting is off: `keepConnected` does it, with backoff, a `failed` state for a
 * revoked token and no unhandled rejection when Slack is unreachable at the moment of a reconnect.
 */
export async function slackSocketSession(
  signal: AbortSignal,
  connected: () => void,
  options: SlackSocketOptions,
): Promise<void> {
  const client = new (guarded(options.SocketModeClient, options.onError))({
    appToken: options.appToken,
    logger: options.logger,
    autoReconnectEnabled: false,
    // One try per attempt: keepConnected's backoff spaces the next one (the client would retry 100 times).
    clientOptions: { slackApiUrl: options.apiUrl, retryConfig: { retries: 0 }, timeout: OPEN_TIMEOUT_MS },
  });
  let lastError: unknown;
  client.on('error', (error: unknown) => {
    lastError = error;
  });
  client.on('slack_event', (raw: RawEnvelope) => void deliver(raw, options));
  const closed = new Promise<void>((resolve) => client.once('disconnected', () => resolve()));
  // Removed when the session ends: the channel's signal outlives every reconnect.
  let onAbort = () => {};
  const aborted = new Promise<void>((resolve) => {
    onAbort = () => resolve();
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  const started = client.start().catch((error: unknown) => {
    throw error ?? lastError ?? new Error('the Socket Mode connection closed before Slack said hello');
  });
  // A start still under way when the channel stops is closed the moment it connects.
  started.then(
    () => signal.aborted && void client.disconnect(),
    () => {},
  );
  try {
    await Promise.race([started, aborted]);
    if (signal.aborted) return;
    connected();
    await Promise.race([closed, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
    await client.disconnect();
  }
}

/**
 * The client whose frame handler cannot reject: it reads `payload.event.type` of an `events_api` envelope
 * unchecked, and a rejection there would be unhandled (the socket calls it through an event emitter).
 */
function guarded(Client: typeof SocketModeClient, onError: (error: unknown) => void) {
  return class GuardedSocketModeClient extends Client {
    protected override async onWebSocketMessage(data: string | ArrayBuffer, isBinary: boolean) {
      try {
        await super.onWebSocketMessage(data, isBinary);
      } catch (error) {
        onError(new Error(`a Socket Mode message Wren could not read was dropped: ${String(error)}`));
      }
    }
  };
}

/** What the client emits as `slack_event` for every envelope but `hello` and `disconnect`. */
interface RawEnvelope {
  type: string;
  body?: unknown;
  ack: (response?: Record<string, unknown>) => Promise<void>;
}

async function deliver(raw: RawEnvelope, options: SlackSocketOptions): Promise<void> {
  // Acked first, with an empty payload: what Wren does with it takes longer than Slack's 3 s, and a
  // redelivery (retry_attempt > 0) is acked as well, so Slack stops sending it.
  await raw.ack().catch(options.onError);
  try {
    await options.onEnvelope({ type: raw.type, payload: raw.body });
  } catch (error) {
    options.onError(error);
  }
}
