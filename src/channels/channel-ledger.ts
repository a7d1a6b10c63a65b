import type { ChannelStore } from '../store/ports.js';

export type { Pairing, PairingAsk } from '../store/ports.js';

/**
 * What platform channels keep across restarts (the store's ChannelStore, seen from a channel): inbound ids
 * already taken in, read cursors, and pairings. Injected, so channels never open the store themselves.
 */
export type ChannelLedger = Pick<
  ChannelStore,
  'firstSeen' | 'cursor' | 'setCursor' | 'deleteCursors' | 'isPaired' | 'askPairing'
>;
