/** The 400 message for a value refused by {@link hasEnvReference} (the route prefixes the field's name). */
export const ENV_REFERENCE_REFUSED =
  '`${` is not allowed here: config.yaml would read it as an environment variable; nothing was saved.';

/**
 * Whether `text` would not stay literal in config.yaml. Loading config.yaml (src/util/interpolate.ts) replaces
 * `${NAME}` and `${NAME:-default}` in every string value with the environment's (the process's over
 * `<home>/.env`) and reads `$${` as a literal `${`; every one of these contains `${`, and nothing else expands
 * (`$NAME`, `$(…)` and `%NAME%` stay as written). A value the API writes there must therefore never hold `${`:
 * `model: ${OPENAI_API_KEY}` would put a process-only secret into `GET /api/models`, and a base URL holding one
 * would send it to whatever host that URL names. Pure.
 */
export function hasEnvReference(text: string): boolean {
  return text.includes('${');
}
