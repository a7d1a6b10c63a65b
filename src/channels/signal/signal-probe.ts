import { createSignalRpc } from './create-signal-rpc.js';
import type { SignalConfig } from './signal-config.js';

/** What `wren doctor` learns from the daemon. */
export type SignalProbe = { ok: true; version: string } | { ok: false; message: string };

/**
 * Asks the configured signal-cli daemon for its `version` (one call, 5 s deadline). Never throws: an
 * unreachable daemon or a refusal becomes `ok: false` with what to do next (the token is never shown).
 */
export async function probeSignal(
  config: Pick<SignalConfig, 'url' | 'token' | 'account'>,
  signal?: AbortSignal,
): Promise<SignalProbe> {
  const rpc = createSignalRpc({ url: config.url, ...(config.token ? { token: config.token } : {}) });
  try {
    const result = await rpc.call<{ version?: unknown }>(
      'version',
      { account: config.account },
      { timeoutMs: 5000, ...(signal ? { signal } : {}) },
    );
    const version = typeof result?.version === 'string' ? result.version : 'unknown';
    return { ok: true, version };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const shown = config.token ? reason.split(config.token).join('[token]') : reason;
    return {
      ok: false,
      message: `signal-cli at ${config.url} did not answer (${shown}); start it with: signal-cli -a ${config.account} daemon --http 127.0.0.1:8080`,
    };
  }
}
