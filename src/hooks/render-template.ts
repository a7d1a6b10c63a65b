/** Longest text one `{{path}}` becomes; longer values are cut with `…`. */
export const MAX_VALUE_CHARS = 500;
/** Longest rendered text; longer output is cut with `…`. */
export const MAX_RENDERED_CHARS = 4000;
/** Dotted paths deeper than this render as empty (a payload cannot make a lookup walk far). */
const MAX_DEPTH = 16;

/** `{{ a.b.0.c }}`: names of letters, digits, `_` and `-`, joined by dots. Anything else is left as written. */
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)\s*\}\}/g;

/**
 * Renders a hook's `notify:` template against a webhook payload: each `{{dotted.path}}` is replaced by the
 * value at that path, stringified (strings as they are, numbers and booleans spelled out, objects and arrays
 * as JSON, null and missing paths as nothing) and capped at {@link MAX_VALUE_CHARS}. It is a substitution, not
 * a template engine: no helpers, loops, conditions or expressions, and no code of any kind runs. Lookups see
 * only the payload's own keys (never `constructor`, `__proto__` or other inherited properties). The text a
 * value brings is never rendered again, so a payload cannot add placeholders. Pure.
 */
export function renderTemplate(template: string, payload: unknown): string {
  const rendered = template.replace(PLACEHOLDER, (_whole, path: string) => valueText(lookup(payload, path)));
  return cap(rendered, MAX_RENDERED_CHARS);
}

/** The value at `path` in `root`, following own keys of plain objects and indexes of arrays only. */
function lookup(root: unknown, path: string): unknown {
  const names = path.split('.');
  if (names.length > MAX_DEPTH) return undefined;
  let node = root;
  for (const name of names) {
    if (Array.isArray(node)) {
      if (!/^\d+$/.test(name)) return undefined;
      node = node[Number(name)];
    } else if (isPlainObject(node) && Object.hasOwn(node, name)) {
      node = node[name];
    } else {
      return undefined;
    }
  }
  return node;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function valueText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return cap(value, MAX_VALUE_CHARS);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) || isPlainObject(value)) return cap(cappedJson(value), MAX_VALUE_CHARS);
  return '';
}

/** JSON of a (possibly huge) value without building more than a little over the cap. */
function cappedJson(value: unknown): string {
  let size = 0;
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (size > MAX_VALUE_CHARS) return undefined;
    if (typeof item !== 'string') {
      size += 8;
      return item;
    }
    size += item.length;
    return item.slice(0, MAX_VALUE_CHARS);
  });
  return text ?? '';
}

function cap(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The dotted paths a template names, in order, each once (for a sample payload that fills them all). */
export function templatePaths(template: string): string[] {
  return [...new Set([...template.matchAll(PLACEHOLDER)].map((match) => match[1]!))];
}
