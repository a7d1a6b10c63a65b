import type { ApprovalChoice, ApprovalRequest } from '../../bus/messages.js';
import { APPROVAL_LABELS, describeApprovalText, shortApprovalId } from '../approval-text.js';

/** Signal's default quick reactions that answer an approval ("always" is typed or numbered, on purpose). */
const REACTIONS: ReadonlyArray<[string, ApprovalChoice]> = [
  ['👍', 'once'],
  ['❤️', 'session'],
  ['👎', 'deny'],
];

/** One approval question as sent: in which chat, and the choices its numbers stand for. */
interface Shown {
  chatId: string;
  shortId: string;
  choices: readonly ApprovalChoice[];
}

/**
 * The approval questions shown in Signal chats, by the timestamp of the message that asked (what a
 * reaction or a quote points at), so the owner can answer with a reaction or a number. An answer is
 * translated into the typed form (`once ab12cd`) the base channel already checks and applies.
 */
export class SignalApprovals {
  private readonly shown = new Map<number, Shown>();

  /** The question's text: the shared description, then how to answer it on Signal. */
  static text(request: ApprovalRequest): string {
    const reactions = REACTIONS.filter(([, choice]) => request.choices.includes(choice))
      .map(([emoji, choice]) => `${emoji} ${APPROVAL_LABELS[choice].toLowerCase()}`)
      .join(' · ');
    const numbers = request.choices
      .map((choice, index) => `${index + 1} ${APPROVAL_LABELS[choice].toLowerCase()}`)
      .join(' · ');
    return [
      describeApprovalText(request, true),
      `React ${reactions}, or reply with a number: ${numbers}.`,
    ].join('\n');
  }

  remember(timestamp: number, request: ApprovalRequest): void {
    this.shown.set(timestamp, {
      chatId: request.chatId,
      shortId: shortApprovalId(request.id),
      choices: request.choices,
    });
    if (this.shown.size > 200) this.shown.delete(this.shown.keys().next().value as number);
  }

  forget(timestamp: number): void {
    this.shown.delete(timestamp);
  }

  /** The typed answer a reaction to the question sent at `target` stands for, if it is one. */
  fromReaction(chatId: string, target: number, emoji: string): string | undefined {
    const shown = this.shown.get(target);
    const choice = REACTIONS.find(([known]) => sameEmoji(known, emoji))?.[1];
    if (!shown || shown.chatId !== chatId || !choice || !shown.choices.includes(choice)) return undefined;
    return `${choice} ${shown.shortId}`;
  }

  /**
   * The typed answer a bare number stands for: for the question it quotes, else the newest one still open
   * in that chat. Undefined when the text is no such number (then it is an ordinary message).
   */
  fromNumber(chatId: string, text: string, quoted?: number): string | undefined {
    const match = /^\s*([1-9])\s*$/.exec(text);
    if (!match) return undefined;
    const shown =
      (quoted !== undefined ? this.shown.get(quoted) : undefined) ??
      [...this.shown.values()].reverse().find((item) => item.chatId === chatId);
    if (!shown || shown.chatId !== chatId) return undefined;
    const choice = shown.choices[Number(match[1]) - 1];
    return choice ? `${choice} ${shown.shortId}` : undefined;
  }
}

/** Emoji compared without variation selectors (❤ and ❤️ are the same reaction). */
function sameEmoji(a: string, b: string): boolean {
  const bare = (emoji: string) => emoji.replace(/\uFE0F/g, '');
  return bare(a) === bare(b);
}
