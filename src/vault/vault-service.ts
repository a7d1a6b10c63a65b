import { homeSecretKey, readSecretKey } from '../config/secret-key.js';
import { MIN_SECRET_CHARS } from '../gate/redactor.js';
import type { VaultStore } from '../store/ports.js';
import type { VaultBindings } from '../store/vault-repository.js';
import { SealError, seal, unseal } from '../util/seal.js';
import { VAULT_NAME } from './vault-references.js';

export type { VaultBindings } from '../store/vault-repository.js';

/** What the vault shows of a secret: never its value. */
export interface VaultEntry {
  name: string;
  bindings: VaultBindings;
  createdAt: number;
  updatedAt: number;
  usedAt?: number;
}

/** A value or name the vault refuses, in words the owner can act on (never echoing the value). */
export class VaultError extends Error {
  override name = 'VaultError';
}

/** Longest value kept: a password, a token, a key file's text. */
export const MAX_VALUE_CHARS = 16 * 1024;

export interface VaultServiceOptions {
  store: VaultStore;
  /**
   * The home's sealing key (WREN_SECRET_KEY). `create` is true only when a value is being stored: then a key
   * is made when none is set (homeSecretKey); otherwise undefined means none is set (readSecretKey).
   */
  key: (create: boolean) => Uint8Array | undefined;
  /** Learns every value (add) and forgets removed ones (remove): the gate's redactor, shared with the log. */
  redactor: { add(values: Iterable<string>): void; remove(values: Iterable<string>): void };
}

/** The vault of one home: names and bindings in the open, values sealed (AES-256-GCM, `vault:<NAME>` bound). */
export interface VaultService {
  /**
   * Stores (or replaces) `name` with `value`, bound to `bindings`; the redactor learns the value at once.
   * @throws VaultError for a bad name, a value too short to redact (< 4 characters), too long, or holding a
   * line break (streams are redacted line by line).
   */
  set(name: string, value: string, bindings?: VaultBindings): VaultEntry;
  /** Every secret by name, with bindings and times (no values). */
  list(): VaultEntry[];
  get(name: string): VaultEntry | undefined;
  /** Deletes `name`; its value stays redacted no more. False when there was none. */
  remove(name: string): boolean;
  /**
   * The value of `name`, for the one call the gate let through (see permitVault); notes the use.
   * @throws VaultError when there is no such secret or it does not open under the home's key.
   */
  open(name: string): string;
  /**
   * Has the redactor learn every value not learnt yet (at start, and before each call so a `wren vault set`
   * from another process is covered). Returns the names that could not be opened (another key).
   */
  learn(): string[];
}

const context = (name: string) => `vault:${name}`;

function cleanBindings(bindings: VaultBindings): VaultBindings {
  const clean = (list: string[] | undefined) =>
    [...new Set((list ?? []).map((item) => item.trim()))].filter(Boolean);
  const hosts = clean(bindings.hosts).map((host) => host.toLowerCase());
  const programs = clean(bindings.programs);
  const mcp = clean(bindings.mcp);
  return {
    ...(hosts.length ? { hosts } : {}),
    ...(programs.length ? { programs } : {}),
    ...(mcp.length ? { mcp } : {}),
  };
}

/** Refuses a name or value the vault cannot keep safely; never includes the value in the message. */
export function checkVaultInput(name: string, value?: string): void {
  if (!VAULT_NAME.test(name))
    throw new VaultError(
      `"${name.slice(0, 80)}" is not a vault name: use an upper-case letter, then up to 63 upper-case letters, digits or _ (e.g. GITHUB_TOKEN)`,
    );
  if (value === undefined) return;
  if (value.length < MIN_SECRET_CHARS)
    throw new VaultError(
      `the value is shorter than ${MIN_SECRET_CHARS} characters: too short to be redacted`,
    );
  if (value.length > MAX_VALUE_CHARS)
    throw new VaultError(`the value is longer than ${MAX_VALUE_CHARS} characters`);
  if (/[\r\n]/.test(value)) throw new VaultError('the value holds a line break; a vault value is one line');
}

const entryOf = ({ name, bindings, createdAt, updatedAt, usedAt }: VaultEntry): VaultEntry => ({
  name,
  bindings,
  createdAt,
  updatedAt,
  ...(usedAt !== undefined ? { usedAt } : {}),
});

/** Builds the vault over its store; nothing is opened until `learn` or `open`. */
export function createVaultService(options: VaultServiceOptions): VaultService {
  const { store, redactor } = options;
  /** Values the redactor has learnt, by name, with the row's update time they came from. */
  const learnt = new Map<string, { value: string; updatedAt: number }>();
  const forget = (name: string) => {
    const known = learnt.get(name);
    if (!known) return;
    learnt.delete(name);
    redactor.remove([known.value]);
  };
  const remember = (name: string, value: string, updatedAt: number) => {
    const known = learnt.get(name);
    if (known?.value === value) {
      known.updatedAt = updatedAt;
      return;
    }
    // Learn the new value before forgetting the old one: no moment with neither redacted.
    redactor.add([value]);
    if (known) redactor.remove([known.value]);
    learnt.set(name, { value, updatedAt });
  };
  const unsealed = (name: string, sealed: string): string => {
    const key = options.key(false);
    if (!key) throw new VaultError(`the vault secret ${name} cannot be opened: WREN_SECRET_KEY is not set`);
    try {
      return unseal(key, sealed, context(name));
    } catch (error) {
      if (error instanceof SealError)
        throw new VaultError(
          `the vault secret ${name} does not open under this home's WREN_SECRET_KEY (another key sealed it); set it again with \`wren vault set ${name}\``,
        );
      throw error;
    }
  };
  return {
    set(name, value, bindings = {}) {
      checkVaultInput(name, value);
      const key = options.key(true)!;
      const record = store.put(name, seal(key, value, context(name)), cleanBindings(bindings));
      remember(name, value, record.updatedAt);
      return entryOf(record);
    },
    list: () => store.list().map(entryOf),
    get(name) {
      const record = store.get(name);
      return record ? entryOf(record) : undefined;
    },
    remove(name) {
      const removed = store.remove(name);
      forget(name);
      return removed;
    },
    open(name) {
      const record = store.get(name);
      if (!record) throw new VaultError(`no vault secret named ${name}`);
      const value = unsealed(name, record.sealed);
      remember(name, value, record.updatedAt);
      store.touch(name);
      return value;
    },
    learn() {
      const failed: string[] = [];
      const present = new Set<string>();
      for (const record of store.list()) {
        present.add(record.name);
        if (learnt.get(record.name)?.updatedAt === record.updatedAt) continue;
        try {
          remember(record.name, unsealed(record.name, record.sealed), record.updatedAt);
        } catch {
          failed.push(record.name);
        }
      }
      for (const name of [...learnt.keys()]) if (!present.has(name)) forget(name);
      return failed;
    },
  };
}

/** The vault's key source for a home: `set` makes WREN_SECRET_KEY in `.env` when none is set, reads never do. */
export function homeVaultKey(
  home: string,
  env: NodeJS.ProcessEnv,
): (create: boolean) => Uint8Array | undefined {
  return (create) => (create ? homeSecretKey(home, env) : readSecretKey(home, env));
}

/** The vault of a home over its stores, keyed by the home's WREN_SECRET_KEY (see homeVaultKey). */
export function createHomeVault(deps: {
  home: string;
  env: NodeJS.ProcessEnv;
  stores: { vault: VaultStore };
  redactor: VaultServiceOptions['redactor'];
}): VaultService {
  return createVaultService({
    store: deps.stores.vault,
    key: homeVaultKey(deps.home, deps.env),
    redactor: deps.redactor,
  });
}
