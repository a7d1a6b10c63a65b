import type { ImapFlow, MessageStructureObject } from 'imapflow';
import { newText } from '../channels/email/email-body.js';

/** Bytes of a text part downloaded at most: a summary needs the start of a mail, not all of it. */
const TEXT_BYTES = 64 * 1024;

/** The parts of a mail that matter to a summary: the readable text part, and the attachments by name. */
export interface MailParts {
  /** Body part number of the text to read (`text/plain`, else `text/html`), when there is one. */
  textPart?: { part: string; html: boolean };
  attachments: string[];
}

function isAttachment(node: MessageStructureObject): boolean {
  return (
    node.disposition?.toLowerCase() === 'attachment' ||
    Boolean(node.dispositionParameters?.['filename'] ?? node.parameters?.['name'])
  );
}

/**
 * Walks a mail's BODYSTRUCTURE. Attachments are listed by file name only: their content is never fetched.
 * A message/rfc822 part (a forwarded mail) counts as an attachment.
 */
export function mailParts(structure: MessageStructureObject | undefined): MailParts {
  const attachments: string[] = [];
  let plain: string | undefined;
  let html: string | undefined;
  const visit = (node: MessageStructureObject) => {
    const type = node.type.toLowerCase();
    if (node.childNodes && type.startsWith('multipart/')) {
      for (const child of node.childNodes) visit(child);
      return;
    }
    const part = node.part ?? '1';
    if (isAttachment(node) || type === 'message/rfc822') {
      const name =
        node.dispositionParameters?.['filename'] ?? node.parameters?.['name'] ?? node.envelope?.subject;
      attachments.push(cleanLine(name ?? type).slice(0, 120));
      return;
    }
    if (type === 'text/plain') plain ??= part;
    else if (type === 'text/html') html ??= part;
  };
  if (structure) visit(structure);
  const textPart = plain ? { part: plain, html: false } : html ? { part: html, html: true } : undefined;
  return { ...(textPart ? { textPart } : {}), attachments };
}

/** The readable text of a mail's text part (at most 64 KB read), its quoted history cut off. */
export async function downloadText(client: ImapFlow, uid: number, parts: MailParts): Promise<string> {
  if (!parts.textPart) return '';
  const downloaded = await client.download(String(uid), parts.textPart.part, {
    uid: true,
    maxBytes: TEXT_BYTES,
  });
  if (!downloaded.content) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of downloaded.content) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  const text = parts.textPart.html ? htmlToText(raw) : raw;
  return newText(text) || text.trim();
}

/** Crude HTML to text for a summary's input: scripts and styles dropped, tags removed, entities of note decoded. */
export function htmlToText(html: string): string {
  return html
    .replace(/<(script|style|head)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<br\s*\/?>|<\/(p|div|tr|li|h\d)>/gi, '\n')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+/g, ' ')
    .replace(/\n\s*\n+/g, '\n\n')
    .trim();
}

/** A header value fit for one line of a prompt or a terminal: control characters become spaces. */
export function cleanLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}
