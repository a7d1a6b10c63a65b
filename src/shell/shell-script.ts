import type { Word, WordPart } from './shell-lexer.js';

/** A redirection attached to a command. */
export interface Redirection {
  op: string;
  /** The descriptor it opens (`3` in `3<~`, `{fd}` in `{fd}<x`), when given. */
  fd?: string;
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
  /** Run in the background with `&` (or as a `coproc`), alone or as part of a list, group or loop. */
  background: boolean;
  /** Put in the background by an `&` inside a loop body: every pass starts another process. */
  forkedInLoop: boolean;
  /** Inside a loop (`while`, `until`, `for`, `select`), condition or body. */
  inLoop: boolean;
  /** Runs only on some paths: after `&&`/`||`, in an `if`, `case` or loop. */
  conditional: boolean;
  /** Names of the functions whose body contains it, innermost last. */
  functions: string[];
  /** Found inside a substitution (`$(…)`, backticks, `<(…)`) rather than at the script's own level. */
  nested: boolean;
  /**
   * The subshell it runs in: `0` for the script's own shell, `0.3` for the third subshell opened inside it
   * (`( … )`, a substitution) and so on. A `cd` or an alias only lasts inside its scope and the ones below.
   */
  scope: string;
  /** The list operator right after it (`&&`, `||`, `;`, `\n`, `&`, `|`, `|&`), if any. */
  followedBy?: string;
}

/** A function the script defines. */
export interface FunctionDefinition {
  /** The scope the definition appears in (its body runs in the caller's scope when called). */
  scope: string;
}

/** A `for NAME in WORDS` or `select` loop: the values its variable takes. */
export interface LoopBinding {
  name: string;
  /** The list after `in`; undefined without one (`for f; do`: the positional parameters). */
  words?: Word[];
  /** `select`: the value comes from input. */
  select: boolean;
}

/** Everything the walk found in one script. */
export interface ShellScript {
  commands: SimpleCommand[];
  loops: LoopBinding[];
  /** Why parts of the script cannot be analysed (empty when all of it can). */
  unanalysable: string[];
  /** Every word seen, including those outside command position (for `$IFS` and similar checks). */
  words: Word[];
  /** Functions defined anywhere in it, by name. */
  functions: Map<string, FunctionDefinition>;
}

/** The scope key of the script's own shell. */
export const ROOT_SCOPE = '0';
