import type { ApprovalEvent, ApprovalRequest, OutboundMessage } from '../bus/messages.js';

/**
 * Where a face is: `connected` (it can deliver), `reconnecting` (the network dropped; it retries with
 * backoff), `failed` (it gave up until the next start or config edit: `detail` says why), `stopped`.
 */
export type ChannelState = 'starting' | 'connected' | 'reconnecting' | 'failed' | 'stopped';

export interface ChannelStatus {
  name: string;
  state: ChannelState;
  /** Why it is reconnecting or failed, in words for the owner (never a secret). */
  detail?: string;
  /** Unix ms of the last state change. */
  since: number;
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
  /** The owner's own conversation here (the target `<name>:owner`), when there is one. */
  ownerChat?(): string | undefined;
}
