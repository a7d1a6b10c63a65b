import type { ApprovalChoice, ApprovalRequest } from '../bus/messages.js';
import { APPROVAL_LABELS, describeApprovalText, shortApprovalId } from './approval-text.js';

/**
 * Approvals answered by number, for platforms without buttons: the question lists `1 = Allow once · 2 = …`
 * (in the order of the request's choices), and the owner replies `1`, or `1 ab12cd` while several wait.
 * A numbered answer becomes the typed answer the base understands (`once ab12cd`), so who may answer and
 * what happens stay the base's. Remembers the questions it asked until they are resolved.
 */
export class NumberedApprovals {
  /** Choices of each waiting question, by short id, oldest first. */
  private readonly waiting = new Map<string, readonly ApprovalChoice[]>();

  /** The question's text; the request is remembered as waiting. */
  question(request: ApprovalRequest): string {
    const id = shortApprovalId(request.id);
    this.waiting.set(id, request.choices);
    const numbers = request.choices.map((choice, index) => `${index + 1} = ${APPROVAL_LABELS[choice]}`);
    return [
      describeApprovalText(request, true),
      `Reply with a number: ${numbers.join(' · ')} (or "1 ${id}" while several are waiting)`,
    ].join('\n');
  }

  resolved(approvalId: string): void {
    this.waiting.delete(shortApprovalId(approvalId));
  }

  /**
   * `once ab12cd` for a numbered answer to a waiting question; `ambiguous` for a bare number while
   * several wait; undefined when the text is no numbered answer (it is then an ordinary message).
   */
  translate(text: string): string | 'ambiguous' | undefined {
    const match = /^\s*(\d{1,2})(?:\s+([0-9a-f]{4,32}))?\s*$/i.exec(text);
    if (!match || this.waiting.size === 0) return undefined;
    const shortId = match[2]?.toLowerCase();
    if (!shortId && this.waiting.size > 1) return 'ambiguous';
    const id = shortId ?? [...this.waiting.keys()][0]!;
    const choice = this.waiting.get(id)?.[Number(match[1]) - 1];
    return choice ? `${choice} ${id}` : undefined;
  }
}
