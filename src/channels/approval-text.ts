import type { ApprovalChoice, ApprovalEvent, ApprovalRequest } from '../bus/messages.js';

/** How long the short id of an approval is: enough to tell pending ones apart, short enough to type. */
export const SHORT_ID_LENGTH = 6;

export function shortApprovalId(id: string): string {
  return id.replace(/-/g, '').slice(0, SHORT_ID_LENGTH).toLowerCase();
}

const CHOICES: readonly ApprovalChoice[] = ['once', 'session', 'always', 'deny'];

/** The words on approval buttons, the same on every platform that has buttons. */
export const APPROVAL_LABELS: Readonly<Record<ApprovalChoice, string>> = {
  once: 'Allow once',
  session: 'Allow for this chat',
  always: 'Always allow',
  deny: 'Deny',
};

/**
 * The question for one held call as plain text, for every platform: the tool, its exact arguments (already
 * redacted, shortened by the gate to head + tail), the gate's reason and what may be answered. `buttons`:
 * the platform shows the answers as buttons, so the reply syntax is left out.
 */
export function describeApprovalText(request: ApprovalRequest, buttons: boolean): string {
  const id = shortApprovalId(request.id);
  const lines = [
    `Approval needed [${id}]: ${request.tool}`,
    request.args,
    ...(request.facts ?? []).map((fact) => `• ${fact}`),
    `Why: ${request.reason}`,
  ];
  if (request.target && request.choices.includes('always'))
    lines.push(`"always" would allow ${request.tool} for: ${request.target}`);
  if (!buttons)
    lines.push(`Reply with one of: ${request.choices.map((choice) => `${choice} ${id}`).join(' · ')}`);
  return lines.join('\n');
}

/** Parses a typed answer (`once ab12cd`, `deny ab12cd`); undefined when the text is not one. */
export function parseApprovalReply(text: string): { choice: ApprovalChoice; shortId: string } | undefined {
  const match = /^\s*(once|session|always|deny)\s+([0-9a-f]{4,32})\s*$/i.exec(text);
  if (!match) return undefined;
  const choice = match[1]!.toLowerCase() as ApprovalChoice;
  return CHOICES.includes(choice) ? { choice, shortId: match[2]!.toLowerCase() } : undefined;
}

/** Button payloads: `wa:<choice>:<short id>` (Telegram allows 64 bytes of callback data). */
export function approvalButtonData(request: ApprovalRequest, choice: ApprovalChoice): string {
  return `wa:${choice}:${shortApprovalId(request.id)}`;
}

export function parseApprovalButton(data: string): { choice: ApprovalChoice; shortId: string } | undefined {
  const match = /^wa:(once|session|always|deny):([0-9a-f]{4,32})$/.exec(data);
  return match ? { choice: match[1] as ApprovalChoice, shortId: match[2]! } : undefined;
}

/** How a shown question ended, for the line that replaces its buttons (`once (by telegram:42)`, …). */
export function describeResolution(event: Extract<ApprovalEvent, { type: 'approval-resolved' }>): string {
  return event.outcome === 'timeout'
    ? 'no answer in time: denied'
    : `${event.outcome}${event.by ? ` (by ${event.by})` : ''}`;
}
