import { ScriptWalker } from './script-walker.js';
import { ShellLexer } from './shell-lexer.js';
import { ROOT_SCOPE, type ShellScript } from './shell-script.js';

/** Parses and walks a script (tokenizing it first). Throws ShellLexError on syntax it does not follow. */
export function walkScript(text: string): ShellScript {
  const result: ShellScript = { commands: [], loops: [], unanalysable: [], words: [], functions: new Map() };
  new ScriptWalker(result).walk(ShellLexer.tokenize(text), {
    functions: [],
    nested: false,
    scope: ROOT_SCOPE,
    inLoop: false,
    conditional: false,
  });
  return result;
}
