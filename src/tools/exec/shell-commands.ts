import { ShellLexError, ShellLexer, type Token, type Word, type WordPart } from './shell-lexer.js';

/** A redirection attached to a command. */
export interface Redirection {
  op: string;
  target: Word;
  heredoc?: { expands: boolean; parts: WordPart[] };
}

/** One simple command found anywhere in a script (top level, pipeline, group, substitution, function). */
export interface SimpleCommand {
  /** The command name and its arguments (assignments removed). */
  words: Word[];
  assignments: Word[];
  redirects: Redirection[];
  /** Its standard input comes from a pipe (it is a later stage of a pipeline, or inside one). */
  stdinFromPipe: boolean;
  /** Its output goes into a pipe. */
  pipesOut: boolean;
  /** Run in the background with `&`. */
  background: boolean;
  /** Names of the functions whose body contains it, innermost last. */
  functions: string[];
  /** Found inside a substitution (`$(…)`, backticks, `<(…)`) rather than at the script's own level. */
  nested: boolean;
}

/** Everything the walk found in one script. */
export interface ShellScript {
  commands: SimpleCommand[];
  /** Why parts of the script cannot be analysed (empty when all of it can). */
  unanalysable: string[];
  /** Every word seen, including those outside command position (for `$IFS` and similar checks). */
  words: Word[];
}

const KEYWORDS = new Set(['!', 'if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', 'time']);
const LIST_OPS = new Set([';', '\n', '&&', '||', '&']);

interface Frame {
  kind: 'group' | 'subshell' | 'case';
  pipeInput: boolean;
  function?: string;
  /** For `case`: reading patterns or a branch body. */
  mode?: 'subject' | 'pattern' | 'body';
}

function literal(word: Word): string | undefined {
  let text = '';
  for (const part of word.parts) {
    if (part.type !== 'lit') return undefined;
    text += part.value;
  }
  return text;
}

/** Whether a word is spelled as a reserved word (unquoted literal). */
function keyword(word: Word): string | undefined {
  const [part] = word.parts;
  return word.parts.length === 1 && part?.type === 'lit' && !part.quoted ? part.value : undefined;
}

/** Parses and walks a script (tokenizing it first). Throws ShellLexError on syntax it does not follow. */
export function walkScript(text: string): ShellScript {
  const result: ShellScript = { commands: [], unanalysable: [], words: [] };
  new Walker(result).walk(ShellLexer.tokenize(text), []);
  return result;
}

/** Walks already tokenized scripts; nested substitutions are walked with fresh frames into the same result. */
class Walker {
  constructor(private readonly result: ShellScript) {}

  walk(tokens: Token[], outerFunctions: string[], nested = false): void {
    const frames: Frame[] = [];
    let current = this.fresh();
    let afterPipe = false;
    let statement: SimpleCommand[] = [];
    let pendingFunction: string | undefined;
    let skipUntil: 'list-end' | 'double-bracket' | undefined;
    const functions = () => [
      ...outerFunctions,
      ...frames.flatMap((frame) => (frame.function ? [frame.function] : [])),
    ];
    const inPipe = () => afterPipe || frames.some((frame) => frame.pipeInput);
    const finish = () => {
      if (current.words.length + current.assignments.length + current.redirects.length === 0) return;
      current.stdinFromPipe = inPipe();
      current.functions = functions();
      current.nested = nested;
      this.result.commands.push(current);
      statement.push(current);
      current = this.fresh();
    };
    const caseFrame = () => {
      const top = frames.at(-1);
      return top?.kind === 'case' ? top : undefined;
    };
    for (let index = 0; index < tokens.length; index++) {
      const token = tokens[index]!;
      if (token.kind === 'arith') {
        if (/\$\(|`/.test(token.raw)) this.result.unanalysable.push('a command substitution inside (( … ))');
        continue;
      }
      if (token.kind === 'redirect') {
        this.scan(token.target);
        if (token.heredoc) this.scanParts(token.heredoc.parts);
        current.redirects.push({
          op: token.op,
          target: token.target,
          ...(token.heredoc ? { heredoc: token.heredoc } : {}),
        });
        continue;
      }
      if (token.kind === 'op') {
        const frame = caseFrame();
        if (frame && frame.mode === 'pattern') {
          if (token.op === ')') frame.mode = 'body';
          continue;
        }
        if (skipUntil === 'list-end' && (token.op === ';' || token.op === '\n')) skipUntil = undefined;
        if (token.op === '|' || token.op === '|&') {
          current.pipesOut = true;
          finish();
          afterPipe = true;
          continue;
        }
        if (token.op === '(') {
          const next = tokens[index + 1];
          if (current.words.length === 1 && next?.kind === 'op' && next.op === ')') {
            pendingFunction = literal(current.words[0]!) ?? '?';
            current = this.fresh();
            index++;
            continue;
          }
          finish();
          frames.push({ kind: 'subshell', pipeInput: afterPipe, ...this.takeFunction(pendingFunction) });
          pendingFunction = undefined;
          afterPipe = false;
          continue;
        }
        finish();
        if (token.op === ')') {
          const top = frames.pop();
          if (top?.kind !== 'subshell') throw new ShellLexError('unbalanced )');
          continue;
        }
        if (frame && (token.op === ';;' || token.op === ';&' || token.op === ';;&')) {
          frame.mode = 'pattern';
          continue;
        }
        if (LIST_OPS.has(token.op)) {
          if (token.op === '&') for (const command of statement) command.background = true;
          statement = [];
          afterPipe = false;
        }
        continue;
      }
      const word = token.word;
      this.result.words.push(word);
      const text = keyword(word);
      const frame = caseFrame();
      if (frame && frame.mode !== 'body') {
        if (frame.mode === 'subject') {
          this.scan(word);
          if (text === 'in') frame.mode = 'pattern';
        } else if (text === 'esac') frames.pop();
        else this.scan(word);
        continue;
      }
      if (skipUntil === 'double-bracket') {
        this.scan(word);
        if (text === ']]') skipUntil = undefined;
        continue;
      }
      const atStart = current.words.length === 0 && current.assignments.length === 0;
      if (skipUntil === 'list-end') {
        if (text === 'do') skipUntil = undefined;
        else this.scan(word);
        continue;
      }
      if (atStart && text !== undefined) {
        if (KEYWORDS.has(text)) continue;
        if (text === '{') {
          frames.push({ kind: 'group', pipeInput: afterPipe, ...this.takeFunction(pendingFunction) });
          pendingFunction = undefined;
          afterPipe = false;
          continue;
        }
        if (text === '}') {
          const top = frames.pop();
          if (top?.kind !== 'group') throw new ShellLexError('unbalanced }');
          continue;
        }
        if (text === 'esac' && frame) {
          frames.pop();
          continue;
        }
        if (text === 'for' || text === 'select') {
          skipUntil = 'list-end';
          continue;
        }
        if (text === 'case') {
          frames.push({ kind: 'case', pipeInput: afterPipe, mode: 'subject' });
          continue;
        }
        if (text === '[[') {
          skipUntil = 'double-bracket';
          continue;
        }
        if (text === 'function') {
          const name = tokens[index + 1];
          pendingFunction = name?.kind === 'word' ? (literal(name.word) ?? '?') : '?';
          index++;
          const paren = tokens[index + 1];
          const close = tokens[index + 2];
          if (paren?.kind === 'op' && paren.op === '(' && close?.kind === 'op' && close.op === ')')
            index += 2;
          continue;
        }
      }
      this.scan(word);
      if (current.words.length === 0 && /^[A-Za-z_]\w*(\[[^\]]*\])?\+?=/.test(literalPrefix(word)))
        current.assignments.push(word);
      else current.words.push(word);
    }
    finish();
  }

  private takeFunction(name: string | undefined): { function?: string } {
    return name === undefined ? {} : { function: name };
  }

  private fresh(): SimpleCommand {
    return {
      words: [],
      assignments: [],
      redirects: [],
      stdinFromPipe: false,
      pipesOut: false,
      background: false,
      functions: [],
      nested: false,
    };
  }

  /** Walks the substitutions inside a word. */
  private scan(word: Word): void {
    this.scanParts(word.parts);
  }

  private scanParts(parts: WordPart[]): void {
    for (const part of parts) {
      if (part.type === 'command' || part.type === 'process') this.walk(part.tokens, [], true);
      else if (part.type === 'param') this.scanParts(part.inner);
      else if (part.type === 'array') for (const word of part.words) this.scan(word);
      else if (part.type === 'arith' && /\$\(|`/.test(part.raw))
        this.result.unanalysable.push('a command substitution inside $(( … ))');
    }
  }
}

/** The literal text at the start of a word, up to its first non-literal part. */
function literalPrefix(word: Word): string {
  let text = '';
  for (const part of word.parts) {
    if (part.type !== 'lit' || part.quoted) break;
    text += part.value;
  }
  return text;
}
