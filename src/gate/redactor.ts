import { escapeRegExp } from '../util/escape-reg-exp.js';
/** What a redacted secret becomes. */
export const REDACTED = '[redacted]';

/** Values shorter than this are not redacted: they would shred ordinary text. */
export const MIN_SECRET_CHARS = 4;

const SECRET_REFERENCE = /\{\{\s*secret:([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/**
 * Replaces every configured secret value (and its URL-encoded, URL-normalised and base64 forms) with `[redacted]`. Built once
 * per set of secrets; `update` swaps the set after a config reload. Safe to hand to the logger.
 */
export class Redactor {
  private pattern: RegExp | undefined;
  private longestForm = 0;
  private current: string[] = [];
  /** Values of this run (the gateway's local token) that every `update` keeps. */
  private readonly lasting = new Set<string>();

  constructor(values: Iterable<string> = []) {
    this.update(values);
  }

  /** Adds values that stay redacted across `update`s (secrets made at run time, not read from config). */
  add(values: Iterable<string>): void {
    for (const value of values) this.lasting.add(value);
    this.update(this.current);
  }

  /**
   * Drops values `add` kept (secrets of this run that no longer exist, such as a Copilot API token two
   * refreshes old), so a long run's pattern does not grow without end. Values from `update` are unaffected.
   */
  remove(values: Iterable<string>): void {
    let changed = false;
    for (const value of values) changed = this.lasting.delete(value) || changed;
    if (changed) this.update(this.current);
  }

  /** Replaces the secret values to look for (the `add`ed ones stay). */
  update(values: Iterable<string>): void {
    this.current = [...values];
    const forms = new Set<string>();
    for (const value of [...this.current, ...this.lasting]) {
      if (value.length < MIN_SECRET_CHARS) continue;
      forms.add(value);
      forms.add(encodeURIComponent(value));
      // As a URL parser normalises it (spaces → %20, `+` and `/` kept): how a final URL shows it.
      forms.add(encodeURI(value));
      const base64 = Buffer.from(value).toString('base64');
      forms.add(base64);
      forms.add(base64.replace(/=+$/, ''));
    }
    const sorted = [...forms].sort((a, b) => b.length - a.length);
    this.longestForm = sorted[0]?.length ?? 0;
    this.pattern = sorted.length ? new RegExp(sorted.map(escapeRegExp).join('|'), 'g') : undefined;
  }

  /** The length of the longest form redacted (0 for none): a stream holds back one character less. */
  get longest(): number {
    return this.longestForm;
  }

  /**
   * The greatest position at or before `at` where `text` may be cut with no secret form crossing the cut
   * (the start of a form that would cross it), so each side can be redacted on its own.
   */
  safeCut(text: string, at: number): number {
    if (!this.pattern) return at;
    let cut = at;
    for (const match of text.matchAll(this.pattern)) {
      if (match.index >= cut) break;
      if (match.index + match[0].length > cut) cut = match.index;
    }
    return cut;
  }

  /** `text` with every secret replaced. */
  text(text: string): string {
    return this.pattern ? text.replace(this.pattern, REDACTED) : text;
  }

  /** A deep copy of `value` with every string redacted (keys too). Cycles become `[cycle]`. */
  value<T>(value: T): T {
    if (!this.pattern) return value;
    const seen = new WeakSet<object>();
    const walk = (item: unknown): unknown => {
      if (typeof item === 'string') return this.text(item);
      if (item === null || typeof item !== 'object') return item;
      if (seen.has(item)) return '[cycle]';
      seen.add(item);
      if (Array.isArray(item)) return item.map(walk);
      if (item instanceof Error) return this.text(item.message);
      return Object.fromEntries(Object.entries(item).map(([key, inner]) => [this.text(key), walk(inner)]));
    };
    return walk(value) as T;
  }

  /**
   * A pino `hooks.logMethod` that redacts every argument of a log call (objects deeply, messages as text)
   * before pino serialises it: `pino({ hooks: { logMethod: redactor.logHook() } })`.
   */
  logHook(): (this: unknown, args: unknown[], method: (...args: unknown[]) => void) => void {
    const redact = (arg: unknown) => this.value(arg);
    return function (this: unknown, args, method) {
      method.apply(this, args.map(redact));
    };
  }
}

/** The names referenced as `{{secret:NAME}}` anywhere in `args` (strings, nested). */
export function secretReferences(args: unknown): string[] {
  const names = new Set<string>();
  const walk = (item: unknown): void => {
    if (typeof item === 'string') for (const match of item.matchAll(SECRET_REFERENCE)) names.add(match[1]!);
    else if (Array.isArray(item)) item.forEach(walk);
    else if (item && typeof item === 'object') Object.values(item).forEach(walk);
  };
  walk(args);
  return [...names];
}

/**
 * Replaces `{{secret:NAME}}` in every string of `args`, in place (the object is the call's own copy).
 * @throws Error naming the unknown secret (never a value) when a reference has no configured value.
 */
export function resolveSecretsInPlace(
  args: Record<string, unknown>,
  secrets: Readonly<Record<string, string>>,
): void {
  const replace = (text: string) =>
    text.replace(SECRET_REFERENCE, (_whole, name: string) => {
      const value = secrets[name];
      if (value === undefined) throw new Error(`no secret named ${name} is configured`);
      return value;
    });
  const walk = (container: Record<string, unknown> | unknown[]): void => {
    for (const [key, item] of Object.entries(container)) {
      const next = typeof item === 'string' ? replace(item) : item;
      if (next !== item) (container as Record<string, unknown>)[key] = next;
      else if (item && typeof item === 'object') walk(item as Record<string, unknown>);
    }
  };
  walk(args);
}
