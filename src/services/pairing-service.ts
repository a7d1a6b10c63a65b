import type { ChannelStore, Stores } from '../store/open-stores.js';
import type { ServiceContext } from './service-context.js';

export type { Pairing } from '../store/ports.js';
export type PairingService = Pick<ChannelStore, 'listPairings' | 'approvePairing' | 'revokePairing'>;

export function createPairingService(
  stores: Pick<Stores, 'channels'>,
  _context: ServiceContext,
): PairingService {
  return stores.channels;
}
