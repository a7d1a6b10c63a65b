import {
  pushLiteral as push,
  ShellLexError,
  type Token,
  tildeUser,
  type Word,
  type WordPart,
} from './shell-tokens.js';

/** Characters that end an unquoted word. */
export const META = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>']);
const MAX_DEPTH = 32;

/** Decodes the body of a `$'…'` string (ANSI-C escapes). */
export function decodeAnsiC(body: string): string {
  return body.replace(
    /\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs,
    (_match, code: string) => {
      const head = code[0]!;
      if (head === 'x' || head === 'u' || head === 'U')
        return String.fromCodePoint(Number.parseInt(code.slice(1), 16));
      if (/[0-7]/.test(head)) return String.fromCharCode(Number.parseInt(code, 8));
      if (head === 'c') return String.fromCharCode(code.charCodeAt(1) & 31);
      const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', e: '\x1b' };
      return simple[head] ?? (head === 'E' ? '\x1b' : head === 'f' ? '\f' : head === 'v' ? '\v' : head);
    },
  );
}

/**
 * What a `${…}` does beyond reading a value: `${!x}` reads the variable `$x` names (indirect; `${!x*}`,
 * `${!x[@]}` only list names), `${x@P}` expands the value like a prompt (running its substitutions).
 */
function braceOperator(head: string, rest: string): 'indirect' | 'prompt' | undefined {
  if (head.length > 1 && head.startsWith('!') && !/^([*@]|\[[*@]\])$/.test(rest)) return 'indirect';
  return /^(\[[^\]]*\])?@P$/.test(rest) ? 'prompt' : undefined;
}

/**
 * Reads words: quoting (so `r''m` and `\rm` read as `rm`) and every kind of expansion (so a `$(…)` inside
 * `${x:-…}` is still seen). Substitution bodies are scripts, which the subclass tokenizes. Throws
 * {@link ShellLexError} on anything it cannot follow.
 */
export abstract class WordLexer {
  protected pos = 0;

  constructor(
    protected readonly src: string,
    protected readonly depth: number,
  ) {
    if (depth > MAX_DEPTH) throw new ShellLexError('substitutions nested too deeply');
  }

  /** Tokens of a `$(…)` or `<(…)` body starting at the position; the position moves past its `)`. */
  protected abstract nested(): Token[];

  /** Tokens of a script given as text (a backtick body), one level deeper. */
  protected abstract tokenizeText(text: string): Token[];

  /** The parts of an unquoted heredoc body: expansions happen, quotes are literal. */
  protected heredocBody(): WordPart[] {
    const parts: WordPart[] = [];
    while (this.pos < this.src.length) this.quotedStep(parts, '$`\\\n');
    return parts;
  }

  /**
   * One step inside double quotes or an unquoted heredoc body: expansions still happen, and a backslash
   * escapes only the characters in `escapable` (it stays literal before anything else).
   */
  private quotedStep(parts: WordPart[], escapable: string): void {
    const char = this.src[this.pos]!;
    if (char === '\\' && escapable.includes(this.src[this.pos + 1] ?? '')) {
      if (this.src[this.pos + 1] !== '\n') push(parts, this.src[this.pos + 1]!, true);
      this.pos += 2;
    } else if (char === '$') this.dollar(parts);
    else if (char === '`') this.backtick(parts);
    else {
      push(parts, char, true);
      this.pos++;
    }
  }

  /** One word: everything up to an unquoted metacharacter. */
  protected word(): Word {
    const parts: WordPart[] = [];
    const start = this.pos;
    while (this.pos < this.src.length) {
      const char = this.src[this.pos]!;
      const next = this.src[this.pos + 1];
      if ((char === '<' || char === '>') && next === '(') {
        this.pos += 2;
        parts.push({ type: 'process', tokens: this.nested() });
        continue;
      }
      if (META.has(char)) {
        if (char === '(' && /^[A-Za-z_]\w*(\[[^\]]*\])?\+?=$/.test(this.src.slice(start, this.pos))) {
          this.pos++;
          parts.push({ type: 'array', words: this.arrayWords() });
          continue;
        }
        if (char === '(' && this.extglob(parts)) continue;
        break;
      }
      this.wordStep(parts, start, char, next);
    }
    return { parts };
  }

  /** One quoting or expansion construct (or one plain character) inside an unquoted word. */
  private wordStep(parts: WordPart[], start: number, char: string, next: string | undefined): void {
    if (char === "'") {
      const end = this.src.indexOf("'", this.pos + 1);
      if (end === -1) throw new ShellLexError('unterminated single quote');
      push(parts, this.src.slice(this.pos + 1, end), true);
      this.pos = end + 1;
    } else if (char === '"') {
      this.pos++;
      this.double(parts);
    } else if (char === '$' && next === "'") {
      const end = this.ansiEnd(this.pos + 2);
      push(parts, decodeAnsiC(this.src.slice(this.pos + 2, end)), true);
      this.pos = end + 1;
    } else if (char === '$' && next === '"') {
      this.pos += 2;
      this.double(parts);
    } else if (char === '$') this.dollar(parts);
    else if (char === '`') this.backtick(parts);
    else if (char === '\\') {
      if (next === '\n') this.pos += 2;
      else {
        push(parts, next ?? '\\', true);
        this.pos += next === undefined ? 1 : 2;
      }
    } else if (char === '~' && this.tildeAllowed(start, parts)) {
      this.tilde(parts, start);
    } else if (!(char === '{' && this.braceExpansion(parts))) {
      push(parts, char, false);
      this.pos++;
    }
  }

  /**
   * A tilde prefix: up to the first `/` (or `:` in an assignment). Bash leaves it literal when part of it
   * is quoted or it is not a user name or a folder-stack form (`~+`, `~-`, `~2`).
   */
  private tilde(parts: WordPart[], start: number): void {
    const rest = this.src.slice(this.pos + 1);
    const prefix = /^[^/\s;&|()<>:'"`$\\]*/.exec(rest)![0];
    const next = rest[prefix.length];
    const assignment = /^[A-Za-z_]\w*=/.test(this.src.slice(start, this.pos));
    const ends = next === undefined || next === '/' || META.has(next) || (assignment && next === ':');
    const user = ends ? tildeUser(prefix) : undefined;
    if (user === undefined) {
      push(parts, '~', false);
      this.pos++;
      return;
    }
    parts.push({ type: 'tilde', user });
    this.pos += 1 + user.length;
  }

  /**
   * An extglob group (`@(a|b)`, `!(x)`, `+(…)`, `*(…)`, `?(…)`) after its operator inside a word: kept as
   * unquoted pattern text up to the matching `)`.
   */
  private extglob(parts: WordPart[]): boolean {
    const last = parts.at(-1);
    if (last?.type !== 'lit' || last.quoted || !/[@!+*?]$/.test(last.value)) return false;
    let depth = 0;
    for (let index = this.pos; index < this.src.length; index++) {
      const char = this.src[index]!;
      if (char === '(') depth++;
      else if (char === ')' && --depth === 0) {
        push(parts, this.src.slice(this.pos, index + 1), false);
        this.pos = index + 1;
        return true;
      } else if (char !== '|' && META.has(char)) return false;
      else if (char === '\\' || char === "'" || char === '"' || char === '$' || char === '`') return false;
    }
    return false;
  }

  private tildeAllowed(start: number, parts: WordPart[]): boolean {
    if (parts.length === 0) return true;
    const before = this.src.slice(start, this.pos);
    return /^[A-Za-z_]\w*=$/.test(before) || (/^[A-Za-z_]\w*=/.test(before) && before.endsWith(':'));
  }

  /** An unquoted `{a,b}` / `{1..3}` at the position: pushed as one part (its words are not known). */
  private braceExpansion(parts: WordPart[]): boolean {
    let depth = 0;
    for (let index = this.pos; index < this.src.length; index++) {
      const char = this.src[index]!;
      if (META.has(char) || char === '"' || char === "'" || char === '$' || char === '`') return false;
      if (char === '{') depth++;
      if (char === '}' && --depth === 0) {
        const body = this.src.slice(this.pos + 1, index);
        if (!body.includes(',') && !/^[^.]+\.\.[^.]+$/.test(body)) return false;
        parts.push({ type: 'brace', raw: this.src.slice(this.pos, index + 1) });
        this.pos = index + 1;
        return true;
      }
    }
    return false;
  }

  private ansiEnd(from: number): number {
    for (let index = from; index < this.src.length; index++) {
      if (this.src[index] === '\\') index++;
      else if (this.src[index] === "'") return index;
    }
    throw new ShellLexError("unterminated $'…' string");
  }

  /** Inside double quotes, up to the closing quote. */
  private double(parts: WordPart[]): void {
    const before = parts.length;
    while (this.pos < this.src.length) {
      const char = this.src[this.pos]!;
      if (char === '"') {
        this.pos++;
        if (parts.length === before) push(parts, '', true);
        return;
      }
      this.quotedStep(parts, '$`"\\\n');
    }
    throw new ShellLexError('unterminated double quote');
  }

  /** At a `$`: a parameter, a substitution, arithmetic, or a literal dollar sign. */
  private dollar(parts: WordPart[]): void {
    const rest = this.src.slice(this.pos + 1, this.pos + 3);
    if (rest.startsWith('((')) {
      parts.push({ type: 'arith', raw: this.arithmetic(this.pos + 3) });
    } else if (rest.startsWith('(')) {
      this.pos += 2;
      parts.push({ type: 'command', tokens: this.nested() });
    } else if (rest.startsWith('{')) {
      this.pos += 2;
      parts.push(this.braced());
    } else if (rest.startsWith('[')) {
      // `$[…]`: bash's old spelling of `$((…))`.
      let end = this.pos + 2;
      for (let depth = 1; end < this.src.length; end++) {
        if (this.src[end] === '[') depth++;
        else if (this.src[end] === ']' && --depth === 0) break;
      }
      if (end >= this.src.length) throw new ShellLexError('unterminated $[…]');
      parts.push({ type: 'arith', raw: this.src.slice(this.pos + 2, end) });
      this.pos = end + 1;
    } else {
      const name = /^([A-Za-z_]\w*|[0-9@*#?$!-])/.exec(this.src.slice(this.pos + 1))?.[0];
      if (!name) {
        push(parts, '$', false);
        this.pos++;
        return;
      }
      parts.push({ type: 'param', name, plain: true, inner: [] });
      this.pos += 1 + name.length;
    }
  }

  /** `${…}` after the opening brace. */
  private braced(): WordPart {
    const head = /^[!#]?([A-Za-z_]\w*|[0-9]+|[@*#?$!-])/.exec(this.src.slice(this.pos));
    if (!head) throw new ShellLexError('unsupported ${…} form');
    this.pos += head[0].length;
    const from = this.pos;
    const inner: WordPart[] = [];
    let plain = head[0] === head[1];
    while (this.pos < this.src.length) {
      const char = this.src[this.pos]!;
      if (char === '}') {
        const op = braceOperator(head[0], this.src.slice(from, this.pos));
        this.pos++;
        return { type: 'param', name: head[1]!, plain, inner, ...(op ? { op } : {}) };
      }
      plain = false;
      if (char === "'") {
        const end = this.src.indexOf("'", this.pos + 1);
        if (end === -1) throw new ShellLexError('unterminated single quote');
        push(inner, this.src.slice(this.pos + 1, end), true);
        this.pos = end + 1;
      } else if (char === '"') {
        this.pos++;
        this.double(inner);
      } else if (char === '$') this.dollar(inner);
      else if (char === '`') this.backtick(inner);
      else if (char === '\\') {
        push(inner, this.src[this.pos + 1] ?? '', true);
        this.pos += 2;
      } else {
        push(inner, char, false);
        this.pos++;
      }
    }
    throw new ShellLexError('unterminated ${…}');
  }

  /** The raw text of `((…))` / `$((…))` starting after the opening parentheses. */
  protected arithmetic(from: number): string {
    let depth = 2;
    for (let index = from; index < this.src.length; index++) {
      const char = this.src[index];
      if (char === '(') depth++;
      else if (char === ')') depth--;
      if (depth === 0) {
        if (this.src[index - 1] !== ')') throw new ShellLexError('unsupported (( … ) form');
        this.pos = index + 1;
        return this.src.slice(from, index - 1);
      }
    }
    throw new ShellLexError('unterminated arithmetic');
  }

  private arrayWords(): Word[] {
    return this.nested().flatMap((token) => (token.kind === 'word' ? [token.word] : []));
  }

  private backtick(parts: WordPart[]): void {
    let body = '';
    for (let index = this.pos + 1; index < this.src.length; index++) {
      const char = this.src[index]!;
      if (char === '\\' && '$`\\'.includes(this.src[index + 1] ?? '')) {
        body += this.src[index + 1];
        index++;
      } else if (char === '`') {
        this.pos = index + 1;
        parts.push({ type: 'command', tokens: this.tokenizeText(body) });
        return;
      } else body += char;
    }
    throw new ShellLexError('unterminated backtick substitution');
  }
}
