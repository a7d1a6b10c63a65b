/** What a sed program does besides editing the text it reads. */
export interface SedProgram {
  /** Files written by `w FILE`, `W FILE` or the `w FILE` flag of `s`. */
  writes: string[];
  /** Files read by `r FILE`, `R FILE`. */
  reads: string[];
  /** Shell commands run by `e COMMAND`. */
  commands: string[];
  /** `e` alone or the `e` flag of `s`: the text being edited runs as a shell command. */
  runsText: boolean;
  /** Why the program could not be read (it then counts as unanalysable). */
  unreadable?: string;
}

const NO_ARGUMENT = new Set([...'=dDgGhHnNpPxzF']);

/**
 * Reads a GNU sed program (`-e` text or the script operand) far enough to find the files it writes and
 * reads and the commands it runs: addresses (`1,/re/!`), blocks, `s` with any delimiter and its flags,
 * `y`, text commands (`a`, `i`, `c`), labels and branches. Anything else makes it unreadable.
 */
export function readSed(script: string): SedProgram {
  const program: SedProgram = { writes: [], reads: [], commands: [], runsText: false };
  const reader = new SedReader(script, program);
  try {
    reader.read();
  } catch (error) {
    program.unreadable = error instanceof Error ? error.message : String(error);
  }
  return program;
}

class SedReader {
  private pos = 0;

  constructor(
    private readonly src: string,
    private readonly program: SedProgram,
  ) {}

  read(): void {
    for (;;) {
      this.skip(/[\s;]/);
      if (this.pos >= this.src.length) return;
      if (this.src[this.pos] === '#') {
        this.restOfLine();
        continue;
      }
      this.address();
      this.skip(/[ \t]/);
      if (this.src[this.pos] === ',') {
        this.pos++;
        this.skip(/[ \t]/);
        this.address();
      }
      this.skip(/[ \t!]/);
      this.command(this.src[this.pos++] ?? '');
    }
  }

  private command(name: string): void {
    if (name === '{' || name === '}' || NO_ARGUMENT.has(name)) return;
    if (name === 's') this.substitute();
    else if (name === 'y') {
      const delimiter = this.src[this.pos++] ?? '';
      this.delimited(delimiter, false);
      this.delimited(delimiter, false);
    } else if ('aic'.includes(name)) this.text();
    else if ('rRwW'.includes(name)) {
      const file = this.restOfLine().trim();
      (name === 'r' || name === 'R' ? this.program.reads : this.program.writes).push(file);
    } else if (name === 'e') {
      const command = this.restOfLine().trim();
      if (command === '') this.program.runsText = true;
      else this.program.commands.push(command);
    } else if (':btTv'.includes(name)) this.until(/[;\n]/);
    else if ('qQlL'.includes(name)) this.skip(/[ \t\d]/);
    else throw new Error(`sed command ${JSON.stringify(name)}`);
  }

  /** `s/re/replacement/flags`; the `w` flag takes the rest of the line as a file, `e` runs the result. */
  private substitute(): void {
    const delimiter = this.src[this.pos++];
    if (!delimiter || delimiter === '\n' || delimiter === '\\') throw new Error('sed s without a delimiter');
    this.delimited(delimiter, true);
    this.delimited(delimiter, false);
    for (;;) {
      const flag = this.src[this.pos];
      if (flag === undefined || !/[gpiImMe0-9w]/.test(flag)) return;
      this.pos++;
      if (flag === 'e') this.program.runsText = true;
      if (flag === 'w') {
        this.program.writes.push(this.restOfLine().trim());
        return;
      }
    }
  }

  /** One part of `s` or `y` up to the delimiter; in a regex, `[…]` may hold the delimiter. */
  private delimited(delimiter: string, regex: boolean): void {
    while (this.pos < this.src.length) {
      const char = this.src[this.pos++];
      if (char === '\\') this.pos++;
      else if (char === delimiter) return;
      else if (regex && char === '[') this.bracket();
    }
    throw new Error('unterminated sed expression');
  }

  private bracket(): void {
    if (this.src[this.pos] === '^') this.pos++;
    if (this.src[this.pos] === ']') this.pos++;
    const end = this.src.indexOf(']', this.pos);
    if (end === -1) throw new Error('unterminated sed bracket');
    this.pos = end + 1;
  }

  private address(): void {
    const char = this.src[this.pos];
    if (char === undefined) return;
    if (/[\d$+~]/.test(char)) this.skip(/[\d$+~]/);
    else if (char === '/' || char === '\\') {
      const delimiter = char === '/' ? '/' : this.src[++this.pos];
      this.pos++;
      if (!delimiter) throw new Error('sed address without a delimiter');
      this.delimited(delimiter, true);
      this.skip(/[IM]/);
    }
  }

  /** `a text`, `a\` newline text (lines ending in a backslash go on). */
  private text(): void {
    for (;;) {
      const line = this.restOfLine();
      if (!line.endsWith('\\')) return;
    }
  }

  private restOfLine(): string {
    return this.until(/\n/);
  }

  private until(end: RegExp): string {
    const start = this.pos;
    while (this.pos < this.src.length && !end.test(this.src[this.pos]!)) this.pos++;
    const text = this.src.slice(start, this.pos);
    if (this.pos < this.src.length) this.pos++;
    return text;
  }

  private skip(chars: RegExp): void {
    while (this.pos < this.src.length && chars.test(this.src[this.pos]!)) this.pos++;
  }
}
