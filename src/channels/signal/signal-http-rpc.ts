import { randomUUID } from 'node:crypto';
import { createDeadline } from '../../util/create-deadline.js';
import {
  DEFAULT_CALL_TIMEOUT_MS,
  type RpcFrame,
  receiveParams,
  rpcError,
  type SignalEvents,
  type SignalRpc,
  SignalRpcError,
} from './signal-rpc.js';

/**
 * Longest event the stream takes (a Signal text is at most a few KB, a long one up to 64 KB; attachments
 * never come inline): a longer one is dropped unread, so a broken daemon cannot fill the memory.
 */
const MAX_EVENT_CHARS = 4 * 1024 * 1024;

/** signal-cli's HTTP daemon: calls POSTed to /api/v1/rpc, notifications read from /api/v1/events (SSE). */
export class SignalHttpRpc implements SignalRpc {
  constructor(
    private readonly base: string,
    private readonly token?: string,
  ) {}

  private headers(extra: Record<string, string>): Record<string, string> {
    return this.token ? { ...extra, authorization: `Bearer ${this.token}` } : extra;
  }

  async call<T = unknown>(
    method: string,
    params: Record<string, unknown>,
    options: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<T> {
    const deadline = createDeadline(options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS, options.signal);
    try {
      const response = await fetch(`${this.base}/api/v1/rpc`, {
        method: 'POST',
        headers: this.headers({ 'content-type': 'application/json' }),
        body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params }),
        signal: deadline.signal,
      });
      const text = await response.text();
      let frame: RpcFrame | undefined;
      try {
        frame = JSON.parse(text) as RpcFrame;
      } catch {
        frame = undefined;
      }
      if (frame?.error) throw rpcError(frame.error, response.ok ? undefined : response.status);
      if (!response.ok)
        throw new SignalRpcError(`signal-cli answered HTTP ${response.status}`, 0, response.status);
      if (!frame || typeof frame !== 'object')
        throw new SignalRpcError('signal-cli answered something that is not JSON-RPC', 0);
      return frame.result as T;
    } catch (error) {
      if (deadline.timedOut) throw new Error(`signal-cli did not answer ${method} in time`);
      throw error;
    } finally {
      deadline.dispose();
    }
  }

  async listen(events: SignalEvents, signal: AbortSignal, resumeAfter?: string): Promise<void> {
    const response = await fetch(`${this.base}/api/v1/events`, {
      headers: this.headers({
        accept: 'text/event-stream',
        ...(resumeAfter ? { 'last-event-id': resumeAfter } : {}),
      }),
      signal,
    });
    if (!response.ok || !response.body) {
      await response.body?.cancel().catch(() => {});
      throw new SignalRpcError(
        `signal-cli's event stream answered HTTP ${response.status}`,
        0,
        response.status,
      );
    }
    events.onConnected();
    const stream = new SseReader((data, id) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(data);
      } catch {
        return; // not JSON: dropped, the stream goes on
      }
      const frame = parsed as RpcFrame | null;
      // The stream carries the notification's params; a whole JSON-RPC notification is taken as well.
      if (frame && typeof frame === 'object' && frame.method === 'receive')
        events.onReceive(receiveParams(frame), id);
      else if (frame && typeof frame === 'object' && !('method' in frame)) events.onReceive(frame, id);
    });
    const decoder = new TextDecoder();
    for await (const chunk of response.body as AsyncIterable<Uint8Array>)
      stream.push(decoder.decode(chunk, { stream: true }));
  }
}

/**
 * Server-Sent Events, parsed as the HTML spec reads them (lines end in LF or CRLF): `data:` lines joined by newlines, `id:` kept,
 * `event:` and comments ignored (signal-cli sends one kind), an event dispatched at its blank line.
 */
class SseReader {
  private buffer = '';
  private data: string[] = [];
  private dataChars = 0;
  private id: string | undefined;
  private oversized = false;

  constructor(private readonly dispatch: (data: string, id: string | undefined) => void) {}

  push(text: string): void {
    this.buffer += text;
    let newline = this.buffer.indexOf('\n');
    while (newline >= 0) {
      this.line(this.buffer.slice(0, newline).replace(/\r$/, ''));
      this.buffer = this.buffer.slice(newline + 1);
      newline = this.buffer.indexOf('\n');
    }
    // A line that never ends is not kept whole: once over the cap its event is dropped.
    if (this.buffer.length > MAX_EVENT_CHARS) {
      this.oversized = true;
      this.buffer = '';
    }
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data.length && !this.oversized) this.dispatch(this.data.join('\n'), this.id);
      this.data = [];
      this.dataChars = 0;
      this.oversized = false;
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id' && !value.includes('\0')) this.id = value;
    if (field !== 'data' || this.oversized) return;
    this.dataChars += value.length;
    if (this.dataChars > MAX_EVENT_CHARS) {
      this.oversized = true;
      this.data = [];
      return;
    }
    this.data.push(value);
  }
}
