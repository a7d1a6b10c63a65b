/**
 * A configuration problem the user has to fix. The message is complete and meant to be shown verbatim:
 * which file, which key, what is wrong and what to do (e.g.
 * `config.yaml: models[0].tempature: unknown key (did you mean temperature?)`).
 */
export class ConfigError extends Error {
  override name = 'ConfigError';
  /** The file at fault, when there is one. */
  readonly file: string | undefined;
  /** Key path of the first problem, e.g. `models[1].protocol`. */
  readonly keyPath: string | undefined;
  /** The environment variable the user should set, when that is the fix. */
  readonly envVar: string | undefined;

  constructor(
    message: string,
    details: { file?: string; keyPath?: string; envVar?: string; cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.file = details.file;
    this.keyPath = details.keyPath;
    this.envVar = details.envVar;
  }
}

/** Renders a key path the way users read it: `models[1].protocol`. */
export function formatKeyPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? '(top level)' : out;
}
