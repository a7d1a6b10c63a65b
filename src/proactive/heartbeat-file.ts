/** The workspace file of standing checks. */
export const HEARTBEAT_FILE = 'HEARTBEAT.md';

export { HEARTBEAT_STARTER } from '../agent/workspace-files.js';

const ITEM = /^(\s*)[-*+]\s+(.*)$/;
const CHECKBOX = /^\[([ xX])\]\s*/;
const FENCE = /^\s*(```|~~~)/;
/** A thematic break written with bullet characters (`* * *`, `- - -`) is not an item. */
const RULE_ONLY = /^[-*_\s]*$/;

/** Removes HTML comments; an unclosed `<!--` comments out the rest of the text, as in HTML. */
function withoutComments(text: string): string {
  return text.replace(/<!--[\s\S]*?(-->|$)/g, (comment) => comment.replace(/[^\n]/g, ''));
}

/**
 * The active items of a HEARTBEAT.md text: Markdown list items (`- …`, `* …`, `+ …`, `- [ ] …`) that are not
 * checked (`- [x] …`, and the items nested under one), not inside an HTML comment and not inside a fenced
 * code block, with the bullet and checkbox removed. Empty items do not count. A file with only headings,
 * prose, comments or checked items has none: the heartbeat is off. Pure.
 */
export function activeHeartbeatItems(text: string): string[] {
  const items: string[] = [];
  let fenced = false;
  /** Indentation of the checked item whose children are skipped, if any. */
  let checkedIndent: number | undefined;
  for (const line of withoutComments(text).split(/\r?\n/)) {
    if (FENCE.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    const match = ITEM.exec(line);
    if (!match) continue;
    const indent = match[1]!.replace(/\t/g, '    ').length;
    if (checkedIndent !== undefined && indent > checkedIndent) continue;
    checkedIndent = undefined;
    let body = match[2]!.trim();
    const box = CHECKBOX.exec(body);
    if (box) {
      if (box[1] !== ' ') {
        checkedIndent = indent;
        continue;
      }
      body = body.slice(box[0].length).trim();
    }
    if (body === '' || RULE_ONLY.test(body)) continue;
    items.push(body);
  }
  return items;
}
