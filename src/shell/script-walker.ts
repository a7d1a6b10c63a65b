import type { ShellScript, SimpleCommand } from './shell-script.js';
import { literalOf, ShellLexError, type Token, type Word, type WordPart } from './shell-tokens.js';

/** Words that only shape control flow at the start of a command. */
const KEYWORDS = new Set(['!', 'then', 'else', 'elif', 'do', 'time']);
const LIST_OPS = new Set([';', '\n', '&&', '||', '&']);

/** Where a walk starts: the context of the word or script it belongs to. */
export interface WalkOptions {
  /** Functions whose body contains the script (for substitutions inside a function body). */
  functions: string[];
  /** Whether the script is a substitution. */
  nested: boolean;
  /** The subshell scope its commands run in. */
  scope: string;
  /** Whether it runs inside a loop. */
  inLoop: boolean;
  /** Whether it runs only on some paths (inside a branch, a loop or after `&&`/`||`). */
  conditional: boolean;
}

interface Frame {
  kind: 'group' | 'subshell' | 'case' | 'loop' | 'if';
  pipeInput: boolean;
  function?: string;
  /** For `case`: reading the subject, patterns or a branch body. */
  mode?: 'subject' | 'pattern' | 'body';
  /** It opened after `&&`/`||` (so everything in it runs only on some paths). */
  conditional: boolean;
  /** The enclosing statement's start and scope, restored when the frame closes. */
  outerStatementStart: number;
  outerScope: string;
}

/** The state of one walk over one token list. */
interface WalkState {
  readonly options: WalkOptions;
  frames: Frame[];
  current: SimpleCommand;
  afterPipe: boolean;
  /** Index in the result's commands where the current statement (`a | b`, `{ …; }`) began. */
  statementStart: number;
  scope: string;
  pendingFunction?: string;
  skipUntil?: 'list-end' | 'double-bracket';
  /** The statement being read started with `coproc`: it runs in the background. */
  coproc: boolean;
  /** After `&&` or `||` in the current statement. */
  andOr: boolean;
  /** The `for`/`select` header being read. */
  loop?: { select: boolean; header: Word[] };
}

/** Whether a word is spelled as a reserved word (unquoted literal). */
function keyword(word: Word): string | undefined {
  const [part] = word.parts;
  return word.parts.length === 1 && part?.type === 'lit' && !part.quoted ? part.value : undefined;
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

function fresh(): SimpleCommand {
  return {
    words: [],
    assignments: [],
    redirects: [],
    stdinFromPipe: false,
    pipesOut: false,
    background: false,
    forkedInLoop: false,
    inLoop: false,
    functions: [],
    nested: false,
    scope: '',
    conditional: false,
  };
}

/**
 * Walks tokenized scripts into simple commands. Nested substitutions are walked with fresh frames into the
 * same result, each in a scope of its own. Throws ShellLexError on structure it does not follow.
 */
export class ScriptWalker {
  private scopes = 0;

  constructor(private readonly result: ShellScript) {}

  walk(tokens: Token[], options: WalkOptions): void {
    const state: WalkState = {
      options,
      frames: [],
      current: fresh(),
      afterPipe: false,
      statementStart: this.result.commands.length,
      scope: options.scope,
      coproc: false,
      andOr: false,
    };
    for (let index = 0; index < tokens.length; index++) {
      const token = tokens[index]!;
      if (token.kind === 'arith') {
        if (/\$\(|`/.test(token.raw)) this.result.unanalysable.push('a command substitution inside (( … ))');
      } else if (token.kind === 'redirect') {
        this.scan(state, token.target);
        if (token.heredoc) this.scanParts(state, token.heredoc.parts);
        this.result.words.push(token.target);
        state.current.redirects.push({
          op: token.op,
          target: token.target,
          ...(token.fd ? { fd: token.fd } : {}),
          ...(token.heredoc ? { heredoc: token.heredoc } : {}),
        });
      } else if (token.kind === 'op') index = this.operator(state, token.op, tokens, index);
      else index = this.word(state, token.word, tokens, index);
    }
    this.finish(state);
    this.endStatement(state, undefined);
  }

  private operator(state: WalkState, op: string, tokens: Token[], index: number): number {
    const frame = this.caseFrame(state);
    if (frame && frame.mode === 'pattern') {
      if (op === ')') frame.mode = 'body';
      return index;
    }
    if (state.skipUntil === 'list-end' && (op === ';' || op === '\n')) this.endLoopHeader(state);
    if (op === '|' || op === '|&') {
      state.current.pipesOut = true;
      const done = this.finish(state);
      if (done) done.followedBy = op;
      state.afterPipe = true;
      return index;
    }
    if (op === '(') return this.openParen(state, tokens, index);
    const done = this.finish(state);
    if (op === ')') {
      this.popFrame(state, 'subshell', ')');
      return index;
    }
    if (frame && (op === ';;' || op === ';&' || op === ';;&')) {
      frame.mode = 'pattern';
      return index;
    }
    if (LIST_OPS.has(op)) {
      if (done) done.followedBy = op;
      this.endStatement(state, op);
    }
    return index;
  }

  /** `(`: a function definition's `()` or a subshell. */
  private openParen(state: WalkState, tokens: Token[], index: number): number {
    const next = tokens[index + 1];
    if (state.current.words.length === 1 && next?.kind === 'op' && next.op === ')') {
      state.pendingFunction = literalOf(state.current.words[0]!) ?? '?';
      state.current = fresh();
      return index + 1;
    }
    this.finish(state);
    this.pushFrame(state, 'subshell');
    return index;
  }

  private word(state: WalkState, word: Word, tokens: Token[], index: number): number {
    this.result.words.push(word);
    const text = keyword(word);
    const frame = this.caseFrame(state);
    if (frame && frame.mode !== 'body') {
      if (frame.mode === 'subject') {
        this.scan(state, word);
        if (text === 'in') frame.mode = 'pattern';
      } else if (text === 'esac') this.popFrame(state, 'case', 'esac');
      else this.scan(state, word);
      return index;
    }
    if (state.skipUntil === 'double-bracket') {
      this.scan(state, word);
      if (text === ']]') state.skipUntil = undefined;
      return index;
    }
    if (state.skipUntil === 'list-end') {
      if (text === 'do') this.endLoopHeader(state);
      else {
        this.scan(state, word);
        state.loop?.header.push(word);
      }
      return index;
    }
    const atStart = state.current.words.length === 0 && state.current.assignments.length === 0;
    if (atStart && text !== undefined) {
      const next = this.reservedWord(state, text, tokens, index);
      if (next !== undefined) return next;
    }
    this.scan(state, word);
    if (state.current.words.length === 0 && /^[A-Za-z_]\w*(\[[^\]]*\])?\+?=/.test(literalPrefix(word)))
      state.current.assignments.push(word);
    else state.current.words.push(word);
    return index;
  }

  /** A reserved word at the start of a command: the index to go on from, or undefined for an ordinary word. */
  private reservedWord(state: WalkState, text: string, tokens: Token[], index: number): number | undefined {
    if (KEYWORDS.has(text)) return index;
    switch (text) {
      case '{':
        this.pushFrame(state, 'group');
        return index;
      case '}':
        this.popFrame(state, 'group', '}');
        return index;
      case 'while':
      case 'until':
        this.pushFrame(state, 'loop');
        return index;
      case 'for':
      case 'select':
        this.pushFrame(state, 'loop');
        state.skipUntil = 'list-end';
        state.loop = { select: text === 'select', header: [] };
        return index;
      case 'if':
        this.pushFrame(state, 'if');
        return index;
      case 'fi':
        this.popFrame(state, 'if', 'fi');
        return index;
      case 'done':
        this.popFrame(state, 'loop', 'done');
        return index;
      case 'case':
        this.pushFrame(state, 'case');
        return index;
      case 'esac':
        if (!this.caseFrame(state)) return undefined;
        this.popFrame(state, 'case', 'esac');
        return index;
      case '[[':
        state.skipUntil = 'double-bracket';
        return index;
      case 'function':
        return this.functionKeyword(state, tokens, index);
      case 'coproc':
        return this.coprocKeyword(state, tokens, index);
      default:
        return undefined;
    }
  }

  /** `function name [()]`: the body that follows belongs to `name`. */
  private functionKeyword(state: WalkState, tokens: Token[], index: number): number {
    const name = tokens[index + 1];
    state.pendingFunction = name?.kind === 'word' ? (literalOf(name.word) ?? '?') : '?';
    const paren = tokens[index + 2];
    const close = tokens[index + 3];
    if (paren?.kind === 'op' && paren.op === '(' && close?.kind === 'op' && close.op === ')')
      return index + 3;
    return index + 1;
  }

  /** `coproc [NAME] command`: the command runs in the background; NAME only comes before a compound. */
  private coprocKeyword(state: WalkState, tokens: Token[], index: number): number {
    state.coproc = true;
    const name = tokens[index + 1];
    const after = tokens[index + 2];
    const compound =
      (after?.kind === 'word' && keyword(after.word) === '{') || (after?.kind === 'op' && after.op === '(');
    return name?.kind === 'word' && compound ? index + 1 : index;
  }

  /** The end of a `for NAME [in WORDS]` header: the values NAME takes. */
  private endLoopHeader(state: WalkState): void {
    state.skipUntil = undefined;
    const loop = state.loop;
    state.loop = undefined;
    const [name, keyword, ...list] = loop?.header ?? [];
    const text = name ? literalOf(name) : undefined;
    if (!loop || !text) return;
    const words = keyword && literalOf(keyword) === 'in' ? { words: list } : {};
    this.result.loops.push({ name: text, select: loop.select, ...words });
  }

  private caseFrame(state: WalkState): Frame | undefined {
    const top = state.frames.at(-1);
    return top?.kind === 'case' ? top : undefined;
  }

  private pushFrame(state: WalkState, kind: Frame['kind']): void {
    const frame: Frame = {
      kind,
      pipeInput: state.afterPipe,
      conditional: state.andOr || (kind !== 'group' && kind !== 'subshell'),
      outerStatementStart: state.statementStart,
      outerScope: state.scope,
      ...(kind === 'case' ? { mode: 'subject' as const } : {}),
    };
    if ((kind === 'group' || kind === 'subshell') && state.pendingFunction !== undefined) {
      frame.function = state.pendingFunction;
      if (!this.result.functions.has(frame.function))
        this.result.functions.set(frame.function, { scope: state.scope });
      state.pendingFunction = undefined;
    }
    state.frames.push(frame);
    if (kind === 'subshell') state.scope = this.newScope(state.scope);
    state.statementStart = this.result.commands.length;
    if (kind !== 'case') state.afterPipe = false;
  }

  private popFrame(state: WalkState, kind: Frame['kind'], word: string): void {
    const top = state.frames.pop();
    if (top?.kind !== kind) throw new ShellLexError(`unbalanced ${word}`);
    state.scope = top.outerScope;
    state.statementStart = top.outerStatementStart;
  }

  private newScope(parent: string): string {
    return `${parent}.${++this.scopes}`;
  }

  private functions(state: WalkState): string[] {
    return [
      ...state.options.functions,
      ...state.frames.flatMap((frame) => (frame.function ? [frame.function] : [])),
    ];
  }

  private inLoop(state: WalkState): boolean {
    return state.options.inLoop || state.frames.some((frame) => frame.kind === 'loop');
  }

  /** Ends the command being read; returns it, or undefined when it was empty. */
  private finish(state: WalkState): SimpleCommand | undefined {
    const command = state.current;
    if (command.words.length + command.assignments.length + command.redirects.length === 0) return undefined;
    command.stdinFromPipe = state.afterPipe || state.frames.some((frame) => frame.pipeInput);
    command.functions = this.functions(state);
    command.nested = state.options.nested;
    command.scope = state.scope;
    command.inLoop = this.inLoop(state);
    command.conditional =
      state.options.conditional || state.andOr || state.frames.some((frame) => frame.conditional);
    this.result.commands.push(command);
    state.current = fresh();
    return command;
  }

  /** A list operator (or the end) closes the statement; `&` and `coproc` put all of it in the background. */
  private endStatement(state: WalkState, op: string | undefined): void {
    if (op === '&' || state.coproc) {
      const forked = this.inLoop(state);
      for (const command of this.result.commands.slice(state.statementStart)) {
        command.background = true;
        if (forked) command.forkedInLoop = true;
      }
    }
    state.coproc = false;
    state.andOr = op === '&&' || op === '||';
    if (!state.andOr) state.statementStart = this.result.commands.length;
    state.afterPipe = false;
  }

  /** Walks the substitutions inside a word. */
  private scan(state: WalkState, word: Word): void {
    this.scanParts(state, word.parts);
  }

  private scanParts(state: WalkState, parts: WordPart[]): void {
    for (const part of parts) {
      if (part.type === 'command' || part.type === 'process') {
        this.walk(part.tokens, {
          functions: this.functions(state),
          nested: true,
          scope: this.newScope(state.scope),
          inLoop: this.inLoop(state),
          conditional:
            state.options.conditional || state.andOr || state.frames.some((frame) => frame.conditional),
        });
      } else if (part.type === 'param') {
        if (part.op === 'indirect')
          this.result.unanalysable.push(
            'an indirect expansion ${!…} (the value names what is read, subscripts run)',
          );
        if (part.op === 'prompt')
          this.result.unanalysable.push('a prompt expansion ${…@P} runs substitutions in the value');
        this.scanParts(state, part.inner);
      } else if (part.type === 'array') for (const word of part.words) this.scan(state, word);
      else if (part.type === 'arith' && /\$\(|`/.test(part.raw))
        this.result.unanalysable.push('a command substitution inside $(( … ))');
    }
  }
}
