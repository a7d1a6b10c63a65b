/** One piece of a word, after quote removal. */
export type WordPart =
  /** Literal text; `quoted` when it came from quotes or a backslash (no globbing, no tilde). */
  | { type: 'lit'; value: string; quoted: boolean }
  /** `~` or `~user` at the start of a word. */
  | { type: 'tilde'; user: string }
  /** `$name`, `${name}`, `${name…}`; `plain` when nothing follows the name; `inner` holds nested parts. */
  | { type: 'param'; name: string; plain: boolean; inner: WordPart[] }
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
