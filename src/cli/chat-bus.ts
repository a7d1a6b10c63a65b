import type {
  AgentEvent,
  ApprovalAnswer,
  ApprovalAnswerResult,
  ApprovalEvent,
  InboundMessage,
  OutboundMessage,
} from '../bus/messages.js';

/** What the terminal chat needs of a bus: the in-process MessageBus has it, and so does a remote gateway. */
export interface ChatBus {
  request(
    message: InboundMessage,
    onEvent?: (event: AgentEvent) => void,
    signal?: AbortSignal,
  ): Promise<OutboundMessage>;
  answerApproval(answer: ApprovalAnswer): ApprovalAnswerResult | Promise<ApprovalAnswerResult>;
  subscribeApprovals(listener: (event: ApprovalEvent) => void): () => void;
  subscribeOutbound(listener: (message: OutboundMessage) => void, delivers?: string): () => void;
}
