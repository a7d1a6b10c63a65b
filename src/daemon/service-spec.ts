/**
 * What a service runs: `node <flags> <main> start` with WREN_HOME (and the installer's PATH, so the exec tool
 * and MCP servers find the same programs as in a terminal) baked in. Every path is absolute.
 */
export interface ServiceSpec {
  /** The Wren home the service runs (WREN_HOME). */
  readonly home: string;
  /** The absolute path of the Node binary (process.execPath of the installing `wren`). */
  readonly node: string;
  /** The absolute path of the CLI entry (dist/cli/main.js of the installed package or clone). */
  readonly main: string;
  /** PATH for the service's environment. */
  readonly path: string;
  /** The Wren version that wrote the unit (shown in its marker line only). */
  readonly version: string;
}

/**
 * The Node flags `npm start` gives (package.json `start`), both fixed when the process sets up V8, so they
 * must be on the command line (src/cli/memory-flags.ts sets the rest at run time):
 * - `--max-semi-space-size=1`: a 1 MB young generation (~20 MB off a busy gateway);
 * - `--v8-pool-size=1`: one V8 helper thread instead of four. Each helper that allocates gets its own malloc
 *   arena, and their fragments stayed resident: measured after 1,000 turns, RSS ~110 MB instead of ~123 MB, for
 *   a process that idles far more than it collects garbage.
 */
export const START_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1', '--v8-pool-size=1'];

/** The first line of every unit Wren writes: uninstall removes only a file that carries it. */
export const MARKER = 'Written by `wren service install`; `wren service uninstall` removes it.';

/** The systemd unit's name, and the launchd agent's label. */
export const UNIT_NAME = 'wren.service';
export const LAUNCHD_LABEL = 'local.wren.gateway';

/** The command line the service runs, as an argument vector. */
export function startCommand(spec: ServiceSpec): string[] {
  return [spec.node, ...START_NODE_FLAGS, spec.main, 'start'];
}

/** Refuses values that no unit file can carry safely (a newline would start a new directive). */
export function checkSpec(spec: ServiceSpec): void {
  for (const [name, value] of Object.entries(spec)) {
    if (/[\n\r\0]/.test(value))
      throw new Error(`the service's ${name} contains a line break or NUL: ${JSON.stringify(value)}`);
  }
  for (const name of ['home', 'node', 'main'] as const) {
    if (spec[name].trim() !== spec[name])
      throw new Error(`the service's ${name} starts or ends with a space`);
    if (!spec[name].startsWith('/'))
      throw new Error(`the service's ${name} must be an absolute path, not ${spec[name]}`);
  }
}
