import type { DWClientDownStream } from 'dingtalk-stream';

type StreamSdk = typeof import('dingtalk-stream');

/** The stream gateway refused the client id or secret: retrying cannot help. */
export class DingtalkAuthError extends Error {
  override readonly name = 'DingtalkAuthError';
}

export interface DingtalkStreamOptions {
  /** The package, loaded by the caller (only when DingTalk is configured). */
  sdk: StreamSdk;
  clientId: string;
  clientSecret: string;
  /** `<api_url>/v1.0/gateway/connections/open` (the SDK hard-codes api.dingtalk.com; this does not). */
  gatewayUrl: string;
  /**
   * Each robot-message callback, in arrival order: the next waits for it, and its ack goes out once it
   * settles (resolved or not), so a message Wren never recorded is redelivered rather than lost.
   */
  onRobotMessage: (frame: DWClientDownStream) => Promise<void>;
  onError: (error: unknown) => void;
}

/** The two fields of the SDK's client that 2.1.5 keeps private: the socket, and the address it opens. */
interface ClientInternals {
  dw_url?: string;
  socket?: {
    readyState: number;
    once(event: 'close', listener: () => void): unknown;
    terminate(): void;
  };
}

const GATEWAY_DEADLINE_MS = 30_000;
const CLOSED = 3;

function isFrame(value: unknown): value is DWClientDownStream {
  const frame = value as Partial<DWClientDownStream> | null;
  return (
    typeof frame === 'object' &&
    frame !== null &&
    typeof frame.type === 'string' &&
    typeof frame.headers === 'object' &&
    frame.headers !== null &&
    typeof frame.headers.topic === 'string'
  );
}

/**
 * The SDK's client with what Wren needs changed through overrides, never by patching the module: the
 * gateway address comes from config, the handshake has a deadline and tells a refused secret apart, a
 * frame that is not JSON (or not a frame) is dropped instead of throwing inside the socket's handler
 * (which would end the process), and every callback is acked, those of unknown topics at once.
 */
function streamClient(options: DingtalkStreamOptions, signal: AbortSignal) {
  const { DWClient, TOPIC_ROBOT } = options.sdk;
  return class WrenStreamClient extends DWClient {
    private queue: Promise<void> = Promise.resolve();

    override async getEndpoint(): Promise<this> {
      const response = await fetch(options.gatewayUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          clientId: options.clientId,
          clientSecret: options.clientSecret,
          ua: 'wren',
          subscriptions: this.config.subscriptions,
        }),
        signal: AbortSignal.any([signal, AbortSignal.timeout(GATEWAY_DEADLINE_MS)]),
      });
      const body = (await response.json().catch(() => undefined)) as
        | { endpoint?: unknown; ticket?: unknown; code?: unknown }
        | undefined;
      if (response.status === 400 || response.status === 401 || response.status === 403) {
        const code = typeof body?.code === 'string' ? `: ${body.code.slice(0, 80)}` : '';
        throw new DingtalkAuthError(
          `DingTalk refused the client id or secret (${response.status}${code}); check client_id and client_secret`,
        );
      }
      if (!response.ok) throw new Error(`the DingTalk stream gateway answered ${response.status}`);
      const { endpoint, ticket } = body ?? {};
      if (
        typeof endpoint !== 'string' ||
        !/^wss?:\/\//.test(endpoint) ||
        typeof ticket !== 'string' ||
        !ticket
      )
        throw new Error('the DingTalk stream gateway answered without an endpoint and a ticket');
      (this as unknown as ClientInternals).dw_url = `${endpoint}?ticket=${encodeURIComponent(ticket)}`;
      return this;
    }

    override onDownStream(data: string): void {
      let frame: unknown;
      try {
        frame = JSON.parse(String(data));
      } catch {
        options.onError(new Error('a DingTalk stream frame that is not JSON was dropped'));
        return;
      }
      if (!isFrame(frame)) {
        options.onError(new Error('a DingTalk stream frame without a type or topic was dropped'));
        return;
      }
      if (frame.type !== 'CALLBACK') {
        // SYSTEM (ping answered, disconnect) and EVENT (acked SUCCESS) as the SDK handles them.
        super.onDownStream(String(data));
        if (frame.type === 'SYSTEM' && frame.headers.topic === 'disconnect')
          // DingTalk is moving this connection: end it now and reconnect, rather than wait for its close.
          (this as unknown as ClientInternals).socket?.terminate();
        return;
      }
      const messageId = frame.headers.messageId;
      if (typeof messageId !== 'string' || !messageId) return;
      if (frame.headers.topic !== TOPIC_ROBOT) {
        this.socketCallBackResponse(messageId, {});
        return;
      }
      const message = frame;
      this.queue = this.queue
        .then(() => options.onRobotMessage(message))
        .catch(options.onError)
        .then(() => this.socketCallBackResponse(messageId, {}));
    }

    /** Resolves when the socket `_connect` opened has closed. */
    closed(): Promise<void> {
      const socket = (this as unknown as ClientInternals).socket;
      if (!socket) throw new Error('dingtalk-stream opened no socket (is it still version 2.1.5?)');
      return new Promise((resolve) => {
        if (socket.readyState === CLOSED) resolve();
        else socket.once('close', () => resolve());
      });
    }
  };
}

/**
 * One stream connection: the gateway handshake (client id + secret → endpoint + ticket), the WebSocket,
 * then callbacks until the socket closes (resolves) or `signal` aborts. Reconnecting is the caller's
 * (`keepConnected`, with backoff): the SDK's own reconnect is off, as it retries every second forever and
 * can open two sockets after one failed connect.
 * @throws DingtalkAuthError for a refused secret; Error for an unreachable gateway or socket.
 */
export async function dingtalkStreamSession(
  signal: AbortSignal,
  connected: () => void,
  options: DingtalkStreamOptions,
): Promise<void> {
  const Client = streamClient(options, signal);
  const client = new Client({
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    ua: 'wren',
    keepAlive: true,
  });
  client.config.autoReconnect = false;
  // Its own list: the SDK's default array is shared by every client it makes.
  client.config.subscriptions = [{ type: 'CALLBACK', topic: options.sdk.TOPIC_ROBOT }];
  const stop = () => client.disconnect();
  signal.addEventListener('abort', stop, { once: true });
  try {
    await client.getEndpoint();
    if (signal.aborted) return;
    await client._connect();
    if (signal.aborted) return;
    const closed = client.closed();
    connected();
    await closed;
  } finally {
    signal.removeEventListener('abort', stop);
    // Also stops the SDK's heartbeat timer, which outlives a socket that closed on its own.
    client.disconnect();
  }
}
