/**
 * A tokenizer for bash command lines, precise about what the analysis needs: quoting and expansions (read by
 * {@link WordLexer}), heredocs, redirections and operators. It runs after sh-syntax has accepted the text, so
 * it never has to report syntax errors well: anything it cannot follow throws {@link ShellLexError} and the
 * command counts as unanalysable.
 */
import { type Heredoc, literalOf, ShellLexError, type Token } from './shell-tokens.js';
import { META, WordLexer } from './shell-word-lexer.js';

export type { Heredoc, Token, Word, WordPart } from './shell-tokens.js';
export { ShellLexError } from './shell-tokens.js';

const OPERATORS = [';;&', '&&', '||', ';;', ';&', '|&', ';', '|', '&', '(', ')', '\n'];
const REDIRECTS = ['<<<', '<<-', '&>>', '<<', '<>', '<&', '>>', '>&', '>|', '&>', '<', '>'];
/** Words after which `((` starts an arithmetic command rather than two subshells. */
const COMMAND_STARTERS = new Set(['for', 'if', 'then', 'else', 'elif', 'do', 'while', 'until', '!', '{']);

/** Tokenizes one script. `depth` bounds nesting of substitutions. */
export class ShellLexer extends WordLexer {
  private pending: Array<{ delimiter: string; strip: boolean; target: Heredoc }> = [];

  /** The whole text as tokens. */
  static tokenize(text: string, depth = 0): Token[] {
    return new ShellLexer(text, depth).script(false);
  }

  protected tokenizeText(text: string): Token[] {
    return ShellLexer.tokenize(text, this.depth + 1);
  }

  protected nested(): Token[] {
    const lexer = new ShellLexer(this.src, this.depth + 1);
    lexer.pos = this.pos;
    const tokens = lexer.script(true);
    this.pos = lexer.pos;
    return tokens;
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
}
