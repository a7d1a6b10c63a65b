import { type FileEffects, noEffects } from './file-effect-types.js';
import { literalValue, type WordValue } from './shell-paths.js';

/** Standard-library modules with a command line that writes files or reaches the network. */
const NETWORK_MODULES = /^(http\.server|pip|smtpd|ftplib|urllib\.request|webbrowser|ensurepip)$/;

/**
 * What `python3 -m MODULE ARGS` does to files for modules whose command line is known: `zipfile -e/-c`,
 * `tarfile -e/-c`, `json.tool IN OUT`, `venv DIR`, `gzip FILE`; `network` for `pip`, `http.server` ….
 * Undefined when `args` does not run such a module.
 */
export function pythonModule(args: WordValue[]): { effects: FileEffects; network: boolean } | undefined {
  const at = args.findIndex((arg) => arg.text === '-m');
  const module = args[at + 1]?.text;
  if (at === -1 || module === undefined) return undefined;
  const rest = args.slice(at + 2);
  const operands = rest.filter((arg) => !arg.text.startsWith('-'));
  const flag = rest.find((arg) =>
    /^-[ecltd]$|^--(extract|create|list|test|decompress)$/.test(arg.text),
  )?.text;
  const effects = noEffects();
  if (module === 'zipfile' || module === 'tarfile') {
    const [archive, ...others] = operands;
    if ((flag === '-e' || flag === '--extract') && archive)
      effects.unpacks.push(others[0] ?? literalValue('.'));
    if ((flag === '-c' || flag === '--create') && archive) {
      effects.writes.push(archive);
      effects.recursiveReads.push(...others);
    }
  } else if (module === 'json.tool' && operands[1]) effects.writes.push(operands[1]);
  else if (module === 'venv' || module === 'virtualenv') effects.folders.push(...operands);
  else if (module === 'gzip') for (const value of operands) effects.writes.push(value);
  return { effects, network: NETWORK_MODULES.test(module) };
}
