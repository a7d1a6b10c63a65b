/**
 * Turns `"42"` / `"true"` (typically the result of `${VAR}`) into 42 / true; other values pass through. For
 * `z.preprocess` on number and boolean config keys.
 */
export function fromString(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  if (text === 'true') return true;
  if (text === 'false') return false;
  return value;
}
