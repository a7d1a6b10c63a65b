import { SignalHttpRpc } from './signal-http-rpc.js';
import type { SignalRpc } from './signal-rpc.js';
import { SignalSocketRpc } from './signal-socket-rpc.js';

/** Where the daemon listens and how to reach it. */
export interface SignalRpcOptions {
  /** `http://host:port` (`daemon --http`), `tcp://host:port` (`--tcp`) or `unix:///path` (`--socket`). */
  url: string;
  /** Sent as `Authorization: Bearer …` over HTTP (a daemon behind an authenticating proxy). */
  token?: string;
}

/** The transport for `options.url` (its scheme picks it). Pure: nothing connects until a call or listen. */
export function createSignalRpc(options: SignalRpcOptions): SignalRpc {
  const url = new URL(options.url);
  if (url.protocol === 'http:' || url.protocol === 'https:')
    return new SignalHttpRpc(options.url.replace(/\/+$/, ''), options.token);
  if (url.protocol === 'tcp:')
    return new SignalSocketRpc({ host: url.hostname, port: Number(url.port || 7583) });
  return new SignalSocketRpc({ path: decodeURIComponent(url.pathname) });
}
