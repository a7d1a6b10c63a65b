import { checkAssignment, RUN_MARKER } from './check-env.js';
import type { RuleHost } from './rule-host.js';
import { DECLARATIONS } from './shell-expansion.js';
import { RUNTIME, type WordValue } from './shell-paths.js';
import { runTimeBindings } from './static-variables.js';

/** A script the shell itself runs later, in this shell (its variables included). */
export type SharedScript = (text: string, where: string) => void;

/**
 * Builtins that hold code or change what runs: `trap CODE SIG`, `mapfile -C CODE`, `complete -C CODE`
 * (checked as scripts of this shell), `hash -p`, `enable -f`, declarations whose text bash parses again
 * (`declare -a a='($(…))'`), and unsetting Wren's run marker.
 */
export function checkBuiltin(host: RuleHost, name: string, args: WordValue[], shared: SharedScript): void {
  const texts = args.map((arg) => arg.text);
  if (name === 'trap') trap(host, args, shared);
  else if (name === 'mapfile' || name === 'readarray') optionScript(host, args, '-C', `${name} -C`, shared);
  else if (name === 'complete' || name === 'compgen') optionScript(host, args, '-C', `${name} -C`, shared);
  else if (name === 'hash' && texts.some((text) => /^-[a-zA-Z]*p/.test(text)))
    host.flag('changes what a program runs (hash -p)');
  else if (name === 'enable' && texts.some((text) => /^-[a-zA-Z]*f/.test(text)))
    host.flag('changes what a program runs (enable -f)');
  if (DECLARATIONS.has(name) && name !== 'export' && args.some((arg) => /\$\(|`/.test(arg.text)))
    host.cannot(`${name} with text bash parses again as code ($(…) in a value)`);
  // Names only known at run time (`export $(cat .env)`), or set from input (`read LD_PRELOAD`), may be any.
  if (DECLARATIONS.has(name) && args.some((arg) => arg.text.startsWith(RUNTIME)))
    host.cannot(`${name} of variables named at run time (they may change what programs run)`);
  for (const bound of runTimeBindings(name, texts))
    checkAssignment(host, { text: `${bound}=${RUNTIME}`, dynamic: true, ifs: false, process: false });
  const unsets =
    name === 'unset' || (DECLARATIONS.has(name) && texts.some((text) => /^(-n|\+x)$/.test(text)));
  if (unsets && args.some((arg) => arg.text === RUN_MARKER || arg.dynamic)) host.hides('clears');
}

/** `trap CODE SIGNAL…`: CODE runs in this shell on the signal (`-`, empty or `-p`/`-l`: nothing runs). */
function trap(host: RuleHost, args: WordValue[], shared: SharedScript): void {
  const operands = args[0]?.text === '--' ? args.slice(1) : args;
  const [code] = operands;
  if (!code || operands.length < 2 || /^(-|-[lp]+)?$/.test(code.text)) return;
  if (code.dynamic) host.cannot('trap with code built at run time');
  else shared(code.text, 'trap');
}

function optionScript(
  host: RuleHost,
  args: WordValue[],
  option: string,
  where: string,
  shared: SharedScript,
): void {
  args.forEach((arg, index) => {
    const value =
      arg.text === option
        ? args[index + 1]
        : arg.text.startsWith(option)
          ? { ...arg, text: arg.text.slice(2) }
          : undefined;
    if (!value) return;
    if (value.dynamic) host.cannot(`${where} with code built at run time`);
    else shared(value.text, where);
  });
}

/** A `[…]` subscript holding `$(…)` or backticks: bash runs it when it evaluates the text as a number. */
const SUBSCRIPT_CODE = /\[[^\]]*(\$\(|`)/;

/**
 * Whether literal text can become code later: a subscript with a command substitution, which `$((x))`,
 * `[[ $x -eq 1 ]]`, `let`, `declare`, `printf -v`, `read`, `unset`, `test -v` and `${!x}` run.
 */
export function hidesArithmeticCode(text: string): boolean {
  return SUBSCRIPT_CODE.test(text);
}
