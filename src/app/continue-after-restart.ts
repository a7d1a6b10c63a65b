import type { MessageBus } from '../bus/message-bus.js';
import type { ApprovalRequest } from '../bus/messages.js';
import type { ApprovalResult } from '../gate/approval-broker.js';

/**
 * The owner answered (or let expire) a question that waited through a restart; its turn is gone. Approved:
 * the conversation gets a message asking to make the call again (the gate lets exactly that call through
 * once, see ApprovalBroker.resume). Denied or expired: the chat is told.
 */
export function continueAfterRestart(
  bus: MessageBus,
  request: ApprovalRequest,
  result: ApprovalResult,
): void {
  const call = `${request.tool} ${request.args.slice(0, 300)}`;
  if (result.outcome === 'once' || result.outcome === 'session' || result.outcome === 'always') {
    bus.publishInbound({
      id: `resumed:${request.id}`,
      channel: request.channel,
      chatId: request.chatId,
      senderId: request.senderId,
      sessionId: request.sessionId,
      fromOwner: true,
      interactive: true,
      text: `[Wren restarted while this call waited for approval: ${call}. The owner has now approved it (${result.outcome}${result.by ? `, by ${result.by}` : ''}). Make the same call again and carry on with what you were doing.]`,
    });
    return;
  }
  if (result.outcome === 'cancelled') return;
  bus.publishOutbound({
    channel: request.channel,
    chatId: request.chatId,
    replyTo: '',
    sessionId: request.sessionId,
    text: `The call that waited through the restart was not run (${result.outcome === 'timeout' ? 'no answer in time' : 'denied'}): ${call}`,
    kind: 'notice',
    usage: { inputTokens: 0, outputTokens: 0 },
  });
}
