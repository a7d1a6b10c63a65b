/**
 * A tokenizer for bash command lines, precise about what the analysis needs: quoting (so `r''m` and `\rm`
 * read as `rm`), every kind of expansion (so a `$(…)` inside `${x:-…}` is still seen), heredocs and
 * operators. It runs after sh-syntax has accepted the text, so it never has to report syntax errors well:
 * anything it cannot follow throws {@link ShellLexError} and the command counts as unanalysable.
 */

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

/** The text uses shell syntax this lexer does not follow. */
export class ShellLexError extends Error {
  override name = 'ShellLexError';
}

const OPERATORS = [';;&', '&&', '||', ';;', ';&', '|&', ';', '|', '&', '(', ')', '\n'];
const REDIRECTS = ['<<<', '<<-', '&>>', '<<', '<>', '<&', '>>', '>&', '>|', '&>', '<', '>'];
const META = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>']);
/** Words after which `((` starts an arithmetic command rather than two subshells. */
const COMMAND_STARTERS = new Set(['for', 'if', 'then', 'else', 'elif', 'do', 'while', 'until', '!', '{']);
const MAX_DEPTH = 32;

function literalOf(word: Word): string | undefined {
  let text = '';
  for (const part of word.parts) {
    if (part.type !== 'lit') return undefined;
    text += part.value;
  }
  return text;
}

function decodeAnsiC(body: string): string {
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

/** Tokenizes one script. `depth` bounds nesting of substitutions. */
export class ShellLexer {
  private pos = 0;
  private pending: Array<{ delimiter: string; strip: boolean; target: Heredoc }> = [];

  constructor(
    private readonly src: string,
    private readonly depth = 0,
  ) {
    if (depth > MAX_DEPTH) throw new ShellLexError('substitutions nested too deeply');
  }

  /** The whole text as tokens. */
  static tokenize(text: string, depth = 0): Token[] {
    return new ShellLexer(text, depth).script(false);
  }

  /** Tokens up to the end, or (with `closeParen`) up to the `)` that closes a `$(` or `<(`. */
  private script(closeParen: boolean): Token[] {
    const tokens: Token[] = [];
    let parens = 0;
    let cases = 0;
    for (;;) {
      this.skipBlanks();
      if (this.pos >= this.src.length) {
        if (closeParen) throw new ShellLexError('unterminated substitution');
        return tokens;
      }
      const char = this.src[this.pos]!;
      if (char === '#') {
        while (this.pos < this.src.length && this.src[this.pos] !== '\n') this.pos++;
        continue;
      }
      if (this.src.startsWith('((', this.pos) && this.atCommandStart(tokens)) {
        tokens.push({ kind: 'arith', raw: this.arithmetic(this.pos + 2) });
        continue;
      }
      const redirect = this.redirect();
      if (redirect) {
        tokens.push(redirect);
        continue;
      }
      const op =
        (char === '<' || char === '>') && this.src[this.pos + 1] === '(' ? undefined : this.operator();
      if (op) {
        if (op === ')' && closeParen && parens === 0 && cases === 0) return tokens;
        if (op === '(') parens++;
        if (op === ')' && parens > 0) parens--;
        tokens.push({ kind: 'op', op });
        if (op === '\n') this.readHeredocs();
        continue;
      }
      const word = this.word();
      const text = literalOf(word);
      if (text === 'case') cases++;
      if (text === 'esac' && cases > 0) cases--;
      tokens.push({ kind: 'word', word });
    }
  }

  private atCommandStart(tokens: Token[]): boolean {
    const last = tokens.at(-1);
    if (!last) return true;
    if (last.kind === 'op') return last.op !== ')';
    if (last.kind === 'word') return COMMAND_STARTERS.has(literalOf(last.word) ?? '');
    return false;
  }

  private skipBlanks(): void {
    for (;;) {
      const char = this.src[this.pos];
      if (char === ' ' || char === '\t') this.pos++;
      else if (char === '\\' && this.src[this.pos + 1] === '\n') this.pos += 2;
      else return;
    }
  }

  private operator(): string | undefined {
    const op = OPERATORS.find((candidate) => this.src.startsWith(candidate, this.pos));
    if (op) this.pos += op.length;
    return op;
  }

  private redirect(): Token | undefined {
    const start = this.pos;
    const fd = /^(\d+|\{[A-Za-z_]\w*\})(?=[<>])/.exec(this.src.slice(this.pos, this.pos + 20))?.[0];
    if (fd) this.pos += fd.length;
    const op = REDIRECTS.find((candidate) => this.src.startsWith(candidate, this.pos));
    if (!op || this.src[this.pos + op.length] === '(') {
      this.pos = start;
      return undefined;
    }
    this.pos += op.length;
    this.skipBlanks();
    if (this.pos >= this.src.length || META.has(this.src[this.pos]!))
      throw new ShellLexError(`redirection ${op} without a target`);
    const target = this.word();
    const token: Token = { kind: 'redirect', op, target, ...(fd ? { fd } : {}) };
    if (op === '<<' || op === '<<-') {
      const delimiter = target.parts.map((part) => (part.type === 'lit' ? part.value : '')).join('');
      const quoted = target.parts.some((part) => part.type === 'lit' && part.quoted);
      const heredoc: Heredoc = { expands: !quoted, parts: [] };
      token.heredoc = heredoc;
      this.pending.push({ delimiter, strip: op === '<<-', target: heredoc });
    }
    return token;
  }

  private readHeredocs(): void {
    for (const doc of this.pending) {
      const lines: string[] = [];
      while (this.pos < this.src.length) {
        const end = this.src.indexOf('\n', this.pos);
        const line = this.src.slice(this.pos, end === -1 ? this.src.length : end);
        this.pos = end === -1 ? this.src.length : end + 1;
        const compared = doc.strip ? line.replace(/^\t+/, '') : line;
        if (compared === doc.delimiter) break;
        lines.push(compared);
      }
      const body = lines.length > 0 ? `${lines.join('\n')}\n` : '';
      doc.target.parts = doc.target.expands
        ? new ShellLexer(body, this.depth + 1).heredocBody()
        : [{ type: 'lit', value: body, quoted: true }];
    }
    this.pending = [];
  }

  private heredocBody(): WordPart[] {
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
  private word(): Word {
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
        break;
      }
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
        const user = /^[A-Za-z0-9._-]*/.exec(this.src.slice(this.pos + 1))![0];
        parts.push({ type: 'tilde', user });
        this.pos += 1 + user.length;
      } else if (char === '{' && this.braceExpansion(parts)) {
      } else {
        push(parts, char, false);
        this.pos++;
      }
    }
    return { parts };
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
    const inner: WordPart[] = [];
    let plain = head[0] === head[1];
    while (this.pos < this.src.length) {
      const char = this.src[this.pos]!;
      if (char === '}') {
        this.pos++;
        return { type: 'param', name: head[1]!, plain, inner };
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
  private arithmetic(from: number): string {
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

  /** Tokens of a `$(…)` or `<(…)` body; the position moves past its `)`. */
  private nested(): Token[] {
    const lexer = new ShellLexer(this.src, this.depth + 1);
    lexer.pos = this.pos;
    const tokens = lexer.script(true);
    this.pos = lexer.pos;
    return tokens;
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
        parts.push({ type: 'command', tokens: ShellLexer.tokenize(body, this.depth + 1) });
        return;
      } else body += char;
    }
    throw new ShellLexError('unterminated backtick substitution');
  }
}

function push(parts: WordPart[], value: string, quoted: boolean): void {
  const last = parts.at(-1);
  if (last?.type === 'lit' && last.quoted === quoted) last.value += value;
  else parts.push({ type: 'lit', value, quoted });
}
