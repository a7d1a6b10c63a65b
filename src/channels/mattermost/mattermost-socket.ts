import { WebSocket } from 'undici';

/** One server event off the WebSocket, as Mattermost sends it (`data` values are often JSON strings). */
export interface MattermostEvent {
  event: string;
  data: Record<string, unknown>;
  seq: number;
}

export interface MattermostSocketOptions {
  /** `ws(s)://host/api/v4/websocket`. */
  url: string;
  token: string;
  /** Each event in the order it came; a throw is passed to `onError`, never back to the socket. */
  onEvent: (event: MattermostEvent) => void;
  /** The server's sequence skipped numbers: events were lost on the way (the caller may read them back). */
  onGap: () => void;
  onError: (error: unknown) => void;
  /** The live socket's sender while it is open (`user_typing` …), `undefined` once it closed. */
  onSender: (send: ((action: string, data: Record<string, unknown>) => void) | undefined) => void;
  /** How often the socket is pinged; two unanswered pings close it (a silent dead connection). */
  pingEveryMs?: number;
}

/**
 * One Mattermost WebSocket connection (the `session` of `keepConnected`), on undici's WebSocket (Node 20
 * has no global one, which the SDK's WebSocketClient needs, along with `CloseEvent`; its handler also throws
 * on a frame that is not JSON, and it runs a reconnect loop of its own): sends the
 * `authentication_challenge` with the token, calls `connected` on the server's `hello`, hands every event
 * on in order, pings, and resolves when the socket closes or `signal` aborts (the socket then closed).
 * Frames that are not JSON, or not events, are dropped.
 */
export function mattermostSocketSession(
  signal: AbortSignal,
  connected: () => void,
  options: MattermostSocketOptions,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const socket = new WebSocket(options.url);
    let seq = 0;
    let expected = -1;
    let unanswered = 0;
    let opened = false;
    const send = (action: string, data: Record<string, unknown>) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ seq: ++seq, action, data }));
    };
    const pinger = setInterval(() => {
      if (++unanswered > 2) return socket.close(4000, 'no pong');
      send('ping', {});
    }, options.pingEveryMs ?? 30_000);
    pinger.unref();
    const onAbort = () => socket.close(1000, 'stopping');
    signal.addEventListener('abort', onAbort, { once: true });
    const finish = (error?: Error) => {
      clearInterval(pinger);
      signal.removeEventListener('abort', onAbort);
      options.onSender(undefined);
      if (error && !signal.aborted) reject(error);
      else resolve();
    };
    socket.addEventListener('open', () => {
      opened = true;
      send('authentication_challenge', { token: options.token });
    });
    socket.addEventListener('error', () => {
      if (!opened)
        finish(new Error(`the Mattermost WebSocket at ${new URL(options.url).host} could not be opened`));
    });
    socket.addEventListener('close', () => finish());
    socket.addEventListener('message', (message) => {
      let frame: Partial<MattermostEvent> & { seq_reply?: unknown; status?: unknown };
      try {
        frame = JSON.parse(String(message.data));
      } catch {
        options.onError(new Error('a Mattermost WebSocket frame that is not JSON was dropped'));
        return;
      }
      if (typeof frame !== 'object' || frame === null) return;
      if (frame.seq_reply !== undefined) {
        unanswered = 0;
        return;
      }
      if (typeof frame.event !== 'string' || typeof frame.seq !== 'number') return;
      if (expected >= 0 && frame.seq > expected) options.onGap();
      expected = frame.seq + 1;
      if (frame.event === 'hello') {
        options.onSender(send);
        connected();
      }
      try {
        const data = typeof frame.data === 'object' && frame.data !== null ? frame.data : {};
        options.onEvent({ event: frame.event, data, seq: frame.seq });
      } catch (error) {
        options.onError(error);
      }
    });
  });
}
