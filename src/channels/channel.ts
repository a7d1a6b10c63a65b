import type { ApprovalEvent, ApprovalRequest, OutboundMessage } from '../bus/messages.js';

/**
 * Where a face is: `connected` (it can deliver), `reconnecting` (the network dropped; it retries with
 * backoff), `linking` (a linked-device platform waits for the owner to scan a QR code or type a pairing
 * code: `link` holds it), `logged-out` (the platform ended the session: the owner must link again),
 * `failed` (it gave up until the next start or config edit: `detail` says why), `stopped`.
 */
export type ChannelState =
  | 'starting'
  | 'connected'
  | 'reconnecting'
  | 'linking'
  | 'logged-out'
  | 'failed'
  | 'stopped';

/** What the owner needs to link a device while a channel is `linking` (one of the two, as requested). */
export interface ChannelLink {
  /** The QR payload to render (the terminal and the web app draw it); rotates every ~20 s. */
  qr?: string;
  /** A pairing code to type on the phone (WhatsApp: Linked devices → Link with phone number). */
  code?: string;
  /** Unix ms when this QR or code stops working (a fresh one replaces it). */
  expiresAt?: number;
}

/** How the owner asked to link: scan a QR code, or type a code the platform sends for a phone number. */
export type LinkRequest = { method: 'qr' } | { method: 'code'; phone: string };

export interface ChannelStatus {
  name: string;
  state: ChannelState;
  /** Why it is reconnecting or failed, in words for the owner (never a secret). */
  detail?: string;
  /** Unix ms of the last state change. */
  since: number;
  /** Only while `linking`: the QR payload or pairing code to show the owner. */
  link?: ChannelLink;
  /** Set (by the ChannelManager) when the channel links by device (implements `link`): the web app offers Link. */
  linkable?: boolean;
}

/**
 * The contract every face implements (DESIGN.md §3): the terminal, the HTTP API, each chat platform. A face
 * only translates between its platform and the bus; who may talk, de-duplication and the owner's identity
 * live in the shared bases (ChannelBase, PlatformChannel), so no adapter can forget them.
 */
export interface Channel {
  /** The channel's name on the bus (`cli`, `api`, `telegram`…): targets are `<name>:<chat id>`. */
  readonly name: string;
  /** Connects and starts receiving; resolves once running (a platform channel keeps reconnecting itself). */
  start(signal?: AbortSignal): Promise<void>;
  /** Stops receiving and releases the platform connection. Idempotent. */
  stop(): Promise<void>;
  /** Delivers one outbound message (a reply, or something Wren sends on its own) on this platform. */
  send(message: OutboundMessage, signal?: AbortSignal): Promise<void>;
  /** Shows an approval request to the owner where the conversation is (optional capability). */
  presentApproval?(request: ApprovalRequest): Promise<void>;
  /** An approval shown here was answered elsewhere, timed out or was cancelled. */
  approvalResolved?(event: Extract<ApprovalEvent, { type: 'approval-resolved' }>): Promise<void>;
  status(): ChannelStatus;
  /**
   * Linked-device platforms (WhatsApp): drop any half-finished link and start a fresh one by `request`; the
   * QR or code then appears in `status().link`. Resolves once linking has begun, not when it completes.
   */
  link?(request: LinkRequest): Promise<void>;
  /** Linked-device platforms: log this device out on the platform and forget the stored session. */
  unlink?(): Promise<void>;
  /** The owner's own conversation here (the target `<name>:owner`), when there is one. */
  ownerChat?(): string | undefined;
}
