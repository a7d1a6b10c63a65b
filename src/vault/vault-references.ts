/** A vault secret's name: an upper-case letter, then up to 63 upper-case letters, digits or underscores. */
export const VAULT_NAME = /^[A-Z][A-Z0-9_]{0,63}$/;

const REFERENCE = /\{\{\s*vault:([A-Za-z0-9_]+)\s*\}\}/g;

/** The names referenced as `{{vault:NAME}}` anywhere in `args` (strings, nested; keys are not read). */
export function vaultReferences(args: unknown): string[] {
  const names = new Set<string>();
  const walk = (item: unknown): void => {
    if (typeof item === 'string') for (const match of item.matchAll(REFERENCE)) names.add(match[1]!);
    else if (Array.isArray(item)) item.forEach(walk);
    else if (item && typeof item === 'object') Object.values(item).forEach(walk);
  };
  walk(args);
  return [...names];
}

/** `text` with each `{{vault:NAME}}` replaced by `replace(NAME)`. */
export function replaceVaultReferences(text: string, replace: (name: string) => string): string {
  return text.replace(REFERENCE, (_whole, name: string) => replace(name));
}

/** Opens the secrets one call was let through with (by name); throws for any other name. */
export type VaultOpener = (name: string) => string;

/**
 * The calls the gate let through carrying `{{vault:…}}` references, keyed by the very arguments object the
 * registry hands to `execute` next. Nothing else holds an opener: a tool opens a secret only for a call the
 * gate decided on, and only once its `execute` runs (see permitVault / vaultOpenerFor).
 */
const permitted = new WeakMap<object, VaultOpener>();

/** The gate's side: this call (its arguments object) may open the secrets `opener` opens. */
export function permitVault(args: object, opener: VaultOpener): void {
  permitted.set(args, opener);
}

/**
 * The tool's side: the opener the gate left for this call, taken (a second execute of the same object gets
 * none). Undefined when the gate permitted nothing (no references, or a path that bypassed the gate).
 */
export function takeVaultOpener(args: object): VaultOpener | undefined {
  const opener = permitted.get(args);
  permitted.delete(args);
  return opener;
}

/**
 * A deep copy of `value` with every `{{vault:NAME}}` in its strings replaced by the secret, for the tool's
 * execute only (never stored, never shown). Without references the value comes back as it is.
 * @throws Error (naming the secret, never a value) when references exist but the gate permitted none.
 */
export function resolveVault<T>(value: T, opener: VaultOpener | undefined): T {
  if (vaultReferences(value).length === 0) return value;
  if (!opener) throw new Error('{{vault:…}} references are resolved only in a call the gate let through');
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return replaceVaultReferences(item, opener);
    if (Array.isArray(item)) return item.map(walk);
    if (item && typeof item === 'object')
      return Object.fromEntries(Object.entries(item).map(([key, inner]) => [key, walk(inner)]));
    return item;
  };
  return walk(value) as T;
}
