/** One piece of a word, after quote removal. */
export type WordPart =
  /** Literal text; `quoted` when it came from quotes or a backslash (no globbing, no tilde). */
  | { type: 'lit'; value: string; quoted: boolean }
  /** `~`, `~user`, `~+`, `~-` or `~N` (the folder stack) at the start of a word. */
  | { type: 'tilde'; user: string }
  /**
   * `$name`, `${name}`, `${name…}`; `plain` when nothing follows the name; `inner` holds nested parts.
   * `op`: `${!name}` (indirect: the value names another variable, subscripts included) or `${name@P}`
   * (prompt expansion: substitutions in the value run).
   */
  | { type: 'param'; name: string; plain: boolean; inner: WordPart[]; op?: 'indirect' | 'prompt' }
  /** `$(…)` or a backtick substitution, already tokenized. */
  | { type: 'command'; tokens: Token[] }
  /** `<(…)` or `>(…)`. */
  | { type: 'process'; tokens: Token[] }
  /** `$((…))`: the raw expression. */
  | { type: 'arith'; raw: string }
  /** An unquoted brace expansion such as `{a,b}` or `{1..3}`. */
  | { type: 'brace'; raw: string }
  /** `name=(a b c)`: the element words. */
  | { type: 'array'; words: Word[] };

export interface Word {
  parts: WordPart[];
}

export interface Heredoc {
  /** Whether the body undergoes expansion (unquoted delimiter). */
  expands: boolean;
  parts: WordPart[];
}

export type Token =
  | { kind: 'word'; word: Word }
  | { kind: 'op'; op: string }
  | { kind: 'redirect'; op: string; fd?: string; target: Word; heredoc?: Heredoc }
  /** `(( … ))` used as a command. */
  | { kind: 'arith'; raw: string };

/** The text uses shell syntax the lexer or the walk does not follow. */
export class ShellLexError extends Error {
  override name = 'ShellLexError';
}

/** The text of a word made only of literal parts (quoted or not), else undefined. */
export function literalOf(word: Word): string | undefined {
  let text = '';
  for (const part of word.parts) {
    if (part.type !== 'lit') return undefined;
    text += part.value;
  }
  return text;
}

/** Appends literal text, merging with the previous part when it has the same quoting. */
export function pushLiteral(parts: WordPart[], value: string, quoted: boolean): void {
  const last = parts.at(-1);
  if (last?.type === 'lit' && last.quoted === quoted) last.value += value;
  else parts.push({ type: 'lit', value, quoted });
}

/** The user part of a tilde prefix bash expands (`~`, `~ann`, `~+`, `~-`, `~+2`), or undefined (literal). */
export function tildeUser(prefix: string): string | undefined {
  return /^([+-]?\d*|[A-Za-z0-9._][A-Za-z0-9._-]*)$/.test(prefix) ? prefix : undefined;
}
