import type {
  AgentEvent,
  ApprovalAnswer,
  ApprovalAnswerResult,
  ApprovalEvent,
  InboundMessage,
  OutboundMessage,
} from '../bus/messages.js';

/**
 * What a face needs of a bus: the in-process MessageBus has it, and so does a running gateway reached over
 * HTTP (the CLI's remote chat bus), so the terminal channel works the same attached or alone.
 */
export interface ChannelBus {
  request(
    message: InboundMessage,
    onEvent?: (event: AgentEvent) => void,
    signal?: AbortSignal,
  ): Promise<OutboundMessage>;
  answerApproval(answer: ApprovalAnswer): ApprovalAnswerResult | Promise<ApprovalAnswerResult>;
  subscribeApprovals(listener: (event: ApprovalEvent) => void): () => void;
  /** Asks the gate to show this channel the approvals that waited through a restart (in-process only). */
  replayApprovals?(channel: string): void;
  /** `delivers`: this listener shows messages Wren sends on its own on that channel (see MessageBus). */
  subscribeOutbound(
    listener: (message: OutboundMessage) => void | Promise<void>,
    delivers?: string,
  ): () => void;
}
