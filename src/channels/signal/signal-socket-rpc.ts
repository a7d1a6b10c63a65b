import { randomUUID } from 'node:crypto';
import { createConnection, type Socket } from 'node:net';
import {
  DEFAULT_CALL_TIMEOUT_MS,
  type RpcFrame,
  receiveParams,
  rpcError,
  type SignalEvents,
  type SignalRpc,
} from './signal-rpc.js';

/** Longest line read (a `getAttachment` answer carries a whole file as base64): beyond it the socket ends. */
const MAX_LINE_CHARS = 96 * 1024 * 1024;

type Address = { host: string; port: number } | { path: string };

interface Pending {
  resolve(result: unknown): void;
  reject(error: Error): void;
}

/**
 * signal-cli's `daemon --tcp` / `--socket`: newline-delimited JSON-RPC 2.0 both ways. The listening
 * connection also carries calls while it is up; without one, a call opens a connection of its own for
 * that call (the daemon may push notifications on it too: they are dropped, the listener gets them).
 */
export class SignalSocketRpc implements SignalRpc {
  private live: Connection | undefined;

  constructor(private readonly address: Address) {}

  async call<T = unknown>(
    method: string,
    params: Record<string, unknown>,
    options: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<T> {
    if (this.live) return (await this.live.call(method, params, options)) as T;
    const connection = await Connection.open(this.address, () => {}, options.signal);
    try {
      return (await connection.call(method, params, options)) as T;
    } finally {
      connection.close();
    }
  }

  async listen(events: SignalEvents, signal: AbortSignal): Promise<void> {
    const connection = await Connection.open(
      this.address,
      (frame) => {
        if (frame.method === 'receive') events.onReceive(receiveParams(frame));
      },
      signal,
    );
    this.live = connection;
    const onAbort = () => connection.close();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      events.onConnected();
      await connection.closed;
    } finally {
      signal.removeEventListener('abort', onAbort);
      if (this.live === connection) this.live = undefined;
    }
  }
}

/** One socket: lines in, frames out, calls matched to answers by id. */
class Connection {
  private buffer = '';
  private readonly pending = new Map<string, Pending>();
  /** Resolves when the socket closes cleanly, rejects when it fails. */
  readonly closed: Promise<void>;

  private constructor(
    private readonly socket: Socket,
    private readonly onNotification: (frame: RpcFrame) => void,
  ) {
    this.closed = new Promise((resolve, reject) => {
      socket.on('close', () => {
        this.failAll(new Error('the connection to signal-cli closed'));
        resolve();
      });
      socket.on('error', (error) => {
        this.failAll(error);
        reject(error);
      });
    });
    this.closed.catch(() => {});
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.read(chunk));
  }

  static open(address: Address, onNotification: (frame: RpcFrame) => void, signal?: AbortSignal) {
    return new Promise<Connection>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const socket = createConnection(address);
      const fail = (error: unknown) => {
        socket.destroy();
        reject(error);
      };
      const onAbort = () => fail(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      socket.once('error', fail);
      socket.once('connect', () => {
        socket.off('error', fail);
        signal?.removeEventListener('abort', onAbort);
        resolve(new Connection(socket, onNotification));
      });
    });
  }

  call(
    method: string,
    params: Record<string, unknown>,
    options: { timeoutMs?: number; signal?: AbortSignal },
  ): Promise<unknown> {
    const id = randomUUID();
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        this.pending.delete(id);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`signal-cli did not answer ${method} in time`));
      }, options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS);
      const onAbort = () => {
        done();
        reject(options.signal?.reason);
      };
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, {
        resolve: (result) => {
          done();
          resolve(result);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      });
      this.socket.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  close(): void {
    this.socket.end();
    this.socket.destroy();
  }

  private read(chunk: string): void {
    this.buffer += chunk;
    let newline = this.buffer.indexOf('\n');
    while (newline >= 0) {
      const line = this.buffer.slice(0, newline).trim();
      this.buffer = this.buffer.slice(newline + 1);
      if (line) this.frame(line);
      newline = this.buffer.indexOf('\n');
    }
    if (this.buffer.length > MAX_LINE_CHARS)
      this.socket.destroy(new Error('signal-cli sent an endless line'));
  }

  private frame(line: string): void {
    let frame: RpcFrame;
    try {
      frame = JSON.parse(line) as RpcFrame;
    } catch {
      return; // not JSON: dropped, the connection goes on
    }
    if (!frame || typeof frame !== 'object') return;
    const waiting = typeof frame.id === 'string' ? this.pending.get(frame.id) : undefined;
    if (waiting && frame.method === undefined) {
      if (frame.error) waiting.reject(rpcError(frame.error));
      else waiting.resolve(frame.result);
      return;
    }
    if (typeof frame.method === 'string') this.onNotification(frame);
  }

  private failAll(error: Error): void {
    for (const waiting of [...this.pending.values()]) waiting.reject(error);
  }
}
