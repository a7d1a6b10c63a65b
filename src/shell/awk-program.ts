/** What an awk program does besides printing: the files it writes and reads by name, and whether it runs commands. */
export interface AwkProgram {
  /** `print > "FILE"`, `printf … >> "FILE"`: files named by a string constant. */
  writes: string[];
  /** `getline < "FILE"`. */
  reads: string[];
  /** Why part of it cannot be analysed (a command it runs, a file named by an expression). */
  unanalysable: string[];
}

/**
 * Finds the redirections in an awk program: `print`/`printf` to `>`/`>>` a file (a string constant is a
 * path; an expression is only known at run time), to `|` a command, `getline` from `<` a file or `|` a
 * command, and `system()`, `@include`/`@load`. Strings and regex literals are skipped as text.
 */
export function readAwk(program: string): AwkProgram {
  const found: AwkProgram = { writes: [], reads: [], unanalysable: [] };
  const tokens = tokenize(program);
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index]!;
    if (token === 'system' && tokens[index + 1] === '(')
      found.unanalysable.push('awk runs a command (system)');
    if (token === '@include' || token === '@load') found.unanalysable.push(`awk ${token} loads more program`);
    if (token === '|&' || (token === '|' && tokens[index + 1] === 'getline'))
      found.unanalysable.push('awk runs a command (| getline)');
    if (token === 'getline' && tokens[index + 1] === '<') target(tokens[index + 2], found.reads, found);
    if (token === 'print' || token === 'printf') index = statement(tokens, index + 1, found);
  }
  return found;
}

/** A print statement up to `;`, a newline or `}`: a `>`/`>>`/`|` outside parentheses redirects it. */
function statement(tokens: string[], from: number, found: AwkProgram): number {
  let depth = 0;
  for (let index = from; index < tokens.length; index++) {
    const token = tokens[index]!;
    if (token === '(') depth++;
    else if (token === ')') depth--;
    else if (depth <= 0 && (token === ';' || token === '\n' || token === '}')) return index;
    else if (depth <= 0 && (token === '>' || token === '>>')) {
      const end = tokens.slice(index + 1).findIndex((next) => next === ';' || next === '\n' || next === '}');
      const rest = tokens.slice(index + 1, end === -1 ? undefined : index + 1 + end);
      target(rest.length === 1 ? rest[0] : undefined, found.writes, found);
      return end === -1 ? tokens.length : index + end;
    } else if (depth <= 0 && token === '|') {
      found.unanalysable.push('awk runs a command (print |)');
      return index;
    }
  }
  return tokens.length;
}

function target(token: string | undefined, into: string[], found: AwkProgram): void {
  if (token?.startsWith('"') && token.endsWith('"') && token.length >= 2)
    into.push(token.slice(1, -1).replace(/\\(.)/g, '$1'));
  else found.unanalysable.push('awk redirects to a file named at run time');
}

/** Words, strings (quotes kept), operators and newlines; regex literals and comments are dropped. */
function tokenize(program: string): string[] {
  const tokens: string[] = [];
  let index = 0;
  while (index < program.length) {
    const char = program[index]!;
    if (char === ' ' || char === '\t' || (char === '\\' && program[index + 1] === '\n'))
      index += char === '\\' ? 2 : 1;
    else if (char === '#') while (index < program.length && program[index] !== '\n') index++;
    else if (char === '"') {
      let end = index + 1;
      while (end < program.length && program[end] !== '"') end += program[end] === '\\' ? 2 : 1;
      tokens.push(program.slice(index, end + 1));
      index = end + 1;
    } else if (char === '/' && regexAllowed(tokens.at(-1))) {
      let end = index + 1;
      while (end < program.length && program[end] !== '/' && program[end] !== '\n')
        end += program[end] === '\\' ? 2 : 1;
      index = end + 1;
    } else {
      const word = /^(@?[A-Za-z_]\w*|\$?\d+(\.\d+)?|>>|\|&|\|\||&&|[<>!=]=|\n|.)/.exec(
        program.slice(index),
      )![0];
      tokens.push(word);
      index += word.length;
    }
  }
  return tokens;
}

/** A `/` starts a regex where an operand cannot end (after an operator, a bracket or nothing). */
function regexAllowed(previous: string | undefined): boolean {
  if (previous === undefined) return true;
  return /^([(,{;!~\n]|&&|\|\||[<>!=]=|==|print|printf|return|in)$/.test(previous);
}
