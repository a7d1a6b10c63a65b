/** A pairing code given to an unknown sender. */
export interface Pairing {
  code: string;
  channel: string;
  senderId: string;
  chatId: string;
  senderName: string;
  createdAt: number;
  expiresAt: number;
  approvedAt: number | null;
}

/** What came of asking for a pairing code. */
export type PairingAsk =
  | { kind: 'new'; pairing: Pairing }
  | { kind: 'pending'; pairing: Pairing }
  | { kind: 'full' }
  | { kind: 'approved' };

/**
 * What platform channels keep across restarts (implemented over SQLite by the store): inbound ids already
 * taken in, read cursors, and pairings. Injected, so channels never open the store themselves.
 */
export interface ChannelLedger {
  /** Records a platform message id; true the first time it is seen for that channel and chat. */
  firstSeen(channel: string, chatId: string, platformId: string, now: number): boolean;
  cursor(channel: string, key: string): string | undefined;
  setCursor(channel: string, key: string, value: string): void;
  /** Whether the owner approved a pairing of this sender. */
  isPaired(channel: string, senderId: string): boolean;
  /** A code for an unknown sender: the pending one, a new one, or none when 3 are pending already. */
  askPairing(
    request: { channel: string; senderId: string; chatId: string; senderName: string },
    now: number,
  ): PairingAsk;
}
