import { WebSocket } from 'undici';

/** Group @-messages and direct (C2C) messages: the only events Wren asks for. */
export const GROUP_AND_C2C_EVENT = 1 << 25;

const OP = {
  dispatch: 0,
  heartbeat: 1,
  identify: 2,
  resume: 6,
  reconnect: 7,
  invalidSession: 9,
  hello: 10,
  heartbeatAck: 11,
} as const;

/** Close codes after which the session cannot be resumed (a fresh identify follows): bad token, session, seq. */
const NOT_RESUMABLE = new Set([4004, 4006, 4007]);
/** Close codes no reconnect cures (QQ's gateway docs): intents refused, bot offline or banned. */
const FATAL_CLOSE: Readonly<Record<number, string>> = {
  4013: 'QQ refused the intents Wren asks for (group and C2C messages)',
  4014: 'the bot has no permission for group and C2C messages: enable them at q.qq.com (开发设置 → 事件订阅)',
  4914: 'QQ says the bot is offline or limited to its sandbox (set sandbox: true, or publish the bot)',
  4915: 'QQ has banned the bot',
};

/** What a session resumes from: kept across connections (and, by the channel, across restarts). */
export interface GatewayResumeState {
  sessionId?: string | undefined;
  seq?: number | undefined;
}

/** The gateway refused the bot for good (see FATAL_CLOSE). */
export class QqGatewayRefusedError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'QqGatewayRefusedError';
  }
}

export interface QqGatewayOptions {
  url: string;
  /** The access token (sent as `QQBot <token>` in Identify and Resume). */
  token: string;
  intents: number;
  /** Read and updated in place: the session id from READY, the last sequence number seen. */
  resume: GatewayResumeState;
  /** A dispatch other than READY/RESUMED, in arrival order. Must not throw. */
  onDispatch: (type: string, data: unknown) => void;
  /** The state changed (a new session, or the seq moved): the channel stores it. */
  onResumeState: () => void;
  /** READY or RESUMED arrived: the connection is up. */
  connected: () => void;
  /** Milliseconds to wait for Hello before giving up on a connection. */
  helloTimeoutMs?: number;
}

/**
 * One gateway connection (the `session` of keepConnected): waits for Hello, then resumes the stored session
 * (op 6 with session_id and the last seq) or identifies afresh (op 2), heartbeats at Hello's interval with
 * the last seq, and hands each dispatch on. Resolves when the connection ends in a way a reconnect cures
 * (op 7 Reconnect, op 9 Invalid Session — which drops the session so the next connect identifies — a
 * close, a missed heartbeat ACK); rejects with QqGatewayRefusedError for a close code no reconnect cures.
 * Frames that are not JSON, or carry no known op, are ignored.
 */
export function runGateway(options: QqGatewayOptions, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const socket = new WebSocket(options.url);
    let heartbeat: NodeJS.Timeout | undefined;
    let acked = true;
    let settled = false;
    const helloTimer = setTimeout(
      () => finish(new Error('the QQ gateway sent no Hello')),
      options.helloTimeoutMs ?? 30_000,
    );
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(helloTimer);
      if (heartbeat) clearInterval(heartbeat);
      signal.removeEventListener('abort', onAbort);
      try {
        socket.close(1000);
      } catch {
        // Already closing.
      }
      if (error) reject(error);
      else resolve();
    };
    const onAbort = () => finish();
    signal.addEventListener('abort', onAbort, { once: true });
    const send = (op: number, d: unknown) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ op, d }));
    };
    const auth = `QQBot ${options.token}`;
    const start = (interval: number) => {
      clearTimeout(helloTimer);
      const { sessionId, seq } = options.resume;
      if (sessionId && seq !== undefined) send(OP.resume, { token: auth, session_id: sessionId, seq });
      else send(OP.identify, { token: auth, intents: options.intents, shard: [0, 1], properties: {} });
      heartbeat = setInterval(() => {
        // No ACK since the last beat: the connection is a zombie; a new one resumes where this left off.
        if (!acked) return finish(new Error('the QQ gateway stopped answering heartbeats'));
        acked = false;
        send(OP.heartbeat, options.resume.seq ?? null);
      }, interval);
    };
    socket.addEventListener('message', (event) => {
      const frame = parseFrame(event.data);
      if (!frame) return;
      if (typeof frame.s === 'number' && Number.isSafeInteger(frame.s) && frame.op === OP.dispatch) {
        options.resume.seq = frame.s;
        options.onResumeState();
      }
      switch (frame.op) {
        case OP.hello: {
          const interval = Number((frame.d as { heartbeat_interval?: unknown } | null)?.heartbeat_interval);
          return start(Number.isFinite(interval) && interval >= 50 ? interval : 30_000);
        }
        case OP.heartbeatAck:
          acked = true;
          return;
        case OP.heartbeat:
          return send(OP.heartbeat, options.resume.seq ?? null);
        case OP.reconnect:
          return finish();
        case OP.invalidSession:
          options.resume.sessionId = undefined;
          options.resume.seq = undefined;
          options.onResumeState();
          return finish();
        case OP.dispatch:
          return onDispatch(frame);
      }
    });
    const onDispatch = (frame: { t?: unknown; d?: unknown }) => {
      if (frame.t === 'READY') {
        const sessionId = (frame.d as { session_id?: unknown } | null)?.session_id;
        if (typeof sessionId === 'string') options.resume.sessionId = sessionId;
        options.onResumeState();
        options.connected();
      } else if (frame.t === 'RESUMED') {
        options.connected();
      } else if (typeof frame.t === 'string') {
        options.onDispatch(frame.t, frame.d);
      }
    };
    socket.addEventListener('close', (event) => {
      if (NOT_RESUMABLE.has(event.code)) {
        options.resume.sessionId = undefined;
        options.resume.seq = undefined;
        options.onResumeState();
      }
      const fatal = FATAL_CLOSE[event.code];
      finish(fatal ? new QqGatewayRefusedError(fatal) : undefined);
    });
    socket.addEventListener('error', () => finish(new Error('the QQ gateway connection failed')));
  });
}

/** A gateway frame, or undefined for anything that is not a JSON object with a numeric op. */
function parseFrame(data: unknown): { op: number; d?: unknown; s?: unknown; t?: unknown } | undefined {
  if (typeof data !== 'string') return undefined;
  try {
    const frame: unknown = JSON.parse(data);
    if (!frame || typeof frame !== 'object') return undefined;
    const op = (frame as { op?: unknown }).op;
    return typeof op === 'number' ? (frame as { op: number }) : undefined;
  } catch {
    return undefined;
  }
}
