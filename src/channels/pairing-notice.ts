/**
 * A stranger's display name made safe to show the owner: one line, no control, format or bidi
 * characters (which could reorder or hide text), none of the characters links, tags and markup are made of
 * (so it cannot become a link, a mention tag or a heading on any platform, nor end the quotes it is shown
 * in), at most 64 characters. Pure.
 */
export function sanitizeDisplayName(name: string): string {
  const cleaned = name
    .normalize('NFKC')
    .replace(/[\p{C}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/[<>[\]`*~|\\#!:/&"{}=$]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return cleaned.length > 64 ? `${cleaned.slice(0, 63)}…` : cleaned;
}

/** A platform id from a stranger's message, reduced to the characters ids are made of (at most 100). */
export function sanitizeSenderId(id: string): string {
  return id.replace(/[^\w@.+-]/g, '').slice(0, 100);
}

/** What a stranger is told with their code (once per code). */
export function pairingOfferText(code: string): string {
  return `This assistant only talks to people its owner allowed. Your pairing code is ${code} (valid for an hour): ask the owner to run: wren pairing approve ${code}`;
}

/**
 * What the owner is told in their own chat when a stranger gets a pairing code: who asked (sanitised, as
 * it is the stranger's own text), the code, and the two places to approve it.
 */
export function pairingRequestText(request: {
  channel: string;
  senderId: string;
  senderName: string;
  code: string;
}): string {
  const name = sanitizeDisplayName(request.senderName);
  const who = `${name ? `"${name}", ` : ''}${request.channel} id ${sanitizeSenderId(request.senderId)}`;
  return [
    `Someone asked to talk to Wren on ${request.channel}: ${who}. Their pairing code is ${request.code} (valid for an hour).`,
    `To let them talk (they can never approve anything): run wren pairing approve ${request.code}, or use Approvals in the web app. To keep them out, do nothing.`,
  ].join('\n');
}
