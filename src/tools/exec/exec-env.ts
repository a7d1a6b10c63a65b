import { RUN_MARKER } from '../../util/run-marker.js';

/** Names whose values look like secrets: passed only when allow-listed by their exact name. */
const SECRET_LIKE = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|COOKIE|SESSION|AUTH/i;
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

// `runProcess` adds RUN_MARKER after this filter, which drops any inherited `WREN_*`.
export { RUN_MARKER };

/**
 * The environment a shell command runs with: PATH, HOME, LANG, TERM, plus the variables named in `allow`
 * (exact names, or prefixes ending in `*` such as `LC_*`). A name that looks like a secret (`*KEY*`,
 * `*TOKEN*`, `*SECRET*` …) passes only when allow-listed by its exact name; Wren's own variables
 * (`WREN_*`, including a `RUN_MARKER` inherited from an outer run) and the names in `denied` (the
 * variables Wren's config reads) never pass. Pure.
 */
export function execEnvironment(
  source: NodeJS.ProcessEnv,
  allow: readonly string[],
  denied: readonly string[] = [],
): Record<string, string> {
  const env: Record<string, string> = {
    PATH: source['PATH'] || DEFAULT_PATH,
    HOME: source['HOME'] || '/',
    LANG: source['LANG'] || 'C.UTF-8',
    TERM: 'dumb',
  };
  const exact = new Set(allow.filter((name) => !name.endsWith('*')));
  const prefixes = allow.filter((name) => name.endsWith('*')).map((name) => name.slice(0, -1));
  const blocked = new Set(denied);
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || blocked.has(name) || name.startsWith('WREN_')) continue;
    if (exact.has(name) || (prefixes.some((prefix) => name.startsWith(prefix)) && !SECRET_LIKE.test(name)))
      env[name] = value;
  }
  return env;
}
