import { HttpChannel } from '../../src/channels/http/http-channel.js';
import { createGateway, type GatewayOptions } from '../../src/gateway/create-gateway.js';
import type { gatedRuntime } from './gated-runtime.js';

/** The bearer token `gatedGateway` accepts (and `call` sends). */
export const TEST_TOKEN = 'test-token-0123456789';

/**
 * The gateway (through `app.request`, no server) over a runtime from `gatedRuntime`: its bus, session store
 * and real gate, the token `TEST_TOKEN`; `extra` adds or replaces options. `call(path, init)` sends the token
 * and a JSON content type along with `init`.
 */
export function gatedGateway(
  runtime: Pick<ReturnType<typeof gatedRuntime>, 'bus' | 'store' | 'gate'>,
  extra: Partial<GatewayOptions> = {},
) {
  const app = createGateway({
    channel: new HttpChannel({ bus: runtime.bus }),
    sessions: runtime.store,
    gate: runtime.gate,
    verifyToken: (presented) => presented === TEST_TOKEN,
    status: () => ({}),
    version: '9.9.9',
    startedAt: Date.now(),
    ...extra,
  });
  const call = (path: string, init: RequestInit = {}) =>
    app.request(path, {
      ...init,
      headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json', ...init.headers },
    });
  return { app, call };
}
