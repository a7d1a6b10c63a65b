/**
 * The JSON-RPC 2.0 client of signal-cli's daemon (see signal-cli-jsonrpc(5)): calls are the cli commands
 * in camelCase (`send`, `sendTyping`, `getAttachment` …), incoming messages are `receive` notifications.
 * Two transports speak it: HTTP (`daemon --http`: POST /api/v1/rpc, Server-Sent Events on /api/v1/events)
 * and a socket (`daemon --tcp` or `--socket`: one JSON object per line both ways).
 */
/** What a transport hands the channel while it listens. */
export interface SignalEvents {
  /** The connection is up and notifications flow. */
  onConnected(): void;
  /**
   * One `receive` notification's params (`{ envelope, account }`), unvalidated: the daemon's JSON as sent.
   * `eventId` is the HTTP event's id (to resume after it), absent on a socket.
   */
  onReceive(params: unknown, eventId?: string): void;
}

export interface SignalRpc {
  /**
   * Calls one method and returns its `result`.
   * @throws SignalRpcError when the daemon answered with an error (or HTTP status), Error when it could not
   *   be reached or did not answer within `timeoutMs` (default 30 s).
   */
  call<T = unknown>(
    method: string,
    params: Record<string, unknown>,
    options?: { timeoutMs?: number; signal?: AbortSignal },
  ): Promise<T>;
  /**
   * Listens until the connection ends (resolves) or fails (throws); aborting `signal` ends it. `resumeAfter`:
   * the last event id handled (HTTP only: the daemon first replays what came after it).
   */
  listen(events: SignalEvents, signal: AbortSignal, resumeAfter?: string): Promise<void>;
}

/** The daemon refused a call: a JSON-RPC error (`code`, e.g. -1 a user error) or an HTTP status. */
export class SignalRpcError extends Error {
  override readonly name = 'SignalRpcError';
  constructor(
    message: string,
    readonly code: number,
    /** The HTTP status when the refusal was one (read by the retry helper for 429 and 5xx). */
    readonly status?: number,
  ) {
    super(message);
  }
}

/** How long one call may take unless the caller says otherwise. */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;

/** A JSON-RPC response or notification as read off the wire (not yet trusted). */
export interface RpcFrame {
  id?: unknown;
  method?: unknown;
  params?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown };
}

/** The params of a `receive` notification, unwrapped from a `subscribeReceive` subscription when it is one. */
export function receiveParams(frame: RpcFrame): unknown {
  const params = frame.params as { subscription?: unknown; result?: unknown } | undefined;
  return params && params.subscription !== undefined && params.result !== undefined ? params.result : params;
}

/** The error a JSON-RPC `error` member stands for. */
export function rpcError(error: NonNullable<RpcFrame['error']>, status?: number): SignalRpcError {
  const code = typeof error.code === 'number' ? error.code : 0;
  const message = typeof error.message === 'string' ? error.message : 'signal-cli refused the call';
  return new SignalRpcError(`signal-cli: ${message.slice(0, 500)}`, code, status);
}
