import type { Stores } from '../store/open-stores.js';
import type { Pairing } from '../store/ports.js';
import type { ServiceContext } from './service-context.js';
import { notFound, type ServiceFailure } from './service-failure.js';

export type { Pairing, ServiceFailure };

/**
 * People who asked to talk to Wren on a chat platform (a channel with `pairing: true`): the one
 * implementation `wren pairing` and `/api/pairings` share. Approving a code admits its sender as `allow_from`
 * would (they may talk, never approve calls); the running channels read the pairing at each message.
 */
export interface PairingService {
  /** Pending codes (valid an hour) and approved senders, newest first. */
  list(): Pairing[];
  /** Admits the sender who got `code` (any case); `not_found` when no such code is pending (or it expired). */
  approve(code: string): { ok: true; pairing: Pairing } | ServiceFailure;
  /** Forgets a code or an approval; `not_found` when there is none. */
  revokeCode(code: string): { ok: true } | ServiceFailure;
  /** Forgets a pairing named as a code or as `channel:id` (e.g. telegram:12345); `not_found` when none. */
  revoke(codeOrSender: string): { ok: true } | ServiceFailure;
}

/** The pairing service over the home's channel store, at the context's clock. */
export function createPairingService(
  stores: Pick<Stores, 'channels'>,
  context: ServiceContext,
): PairingService {
  const channels = stores.channels;
  const revokeCode = (code: string) =>
    channels.revokePairing({ code }) ? { ok: true as const } : notFound(`No pairing ${code.toUpperCase()}.`);
  return {
    list: () => channels.listPairings(context.now()),
    approve(code) {
      const pairing = channels.approvePairing(code, context.now());
      return pairing
        ? { ok: true, pairing }
        : notFound(`No pending pairing code ${code.toUpperCase()} (codes expire after an hour).`);
    },
    revokeCode,
    revoke(what) {
      const at = what.indexOf(':');
      if (at <= 0) return revokeCode(what);
      const removed = channels.revokePairing({ channel: what.slice(0, at), senderId: what.slice(at + 1) });
      return removed ? { ok: true } : notFound(`No pairing ${what}.`);
    },
  };
}
