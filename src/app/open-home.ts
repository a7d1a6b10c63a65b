import { join } from 'node:path';
import { ensureHome, makeHomePrivate } from '../config/home.js';
import { loadConfig } from '../config/load-config.js';
import type { WrenConfig } from '../config/wren-config.js';
import { createOwnerServices, type OwnerServices, type ServiceContext } from '../services/owner-services.js';
import { openStoresAt, type Stores, upgradeNotice } from '../store/open-stores.js';

/** A home opened for one short command: its configuration, and its stores on demand. */
export interface OpenedHome {
  readonly home: string;
  readonly config: WrenConfig;
  /** Paths `makeHomePrivate` tightened while opening (say so once). */
  readonly madePrivate: readonly string[];
  /**
   * The home's stores over `wren.db` (migrated to the current schema), opened on first use and closed by
   * `close`; each store is built once, and goals created without a zone take `agent.timezone`.
   */
  stores(): Stores;
  /** The owner's actions (memos, tasks, reminders, goals …) over those stores, in config.yaml's zone. */
  services(): OwnerServices;
  /** Closes the stores (and the database file) if they were opened. Idempotent. */
  close(): void;
}

/**
 * The light way into a home for CLI commands that need no agent (memos, tasks, approvals, MCP pins, the
 * token, status): creates what is missing, makes it private, loads and validates config.yaml and opens
 * `wren.db` (migrated) only when asked. Safe while `wren start` runs: SQLite in WAL mode serialises writers.
 * @throws ConfigError (invalid config, unset `${VAR}`) or StoreError (damaged or newer database).
 */
export function openHome(home: string, options: { env?: NodeJS.ProcessEnv } = {}): OpenedHome {
  ensureHome(home);
  const madePrivate = makeHomePrivate(home);
  const config = loadConfig(home, options.env ?? process.env);
  let stores: Stores | undefined;
  let services: OwnerServices | undefined;
  const opened: OpenedHome = {
    home,
    config,
    madePrivate,
    stores() {
      stores ??= openStoresAt(join(home, 'wren.db'), {
        timezone: () => config.agent.timezone,
        // Said on stderr, so a command's --json output on stdout stays clean.
        onUpgrade: (upgrade) => process.stderr.write(`wren: ${upgradeNotice(upgrade)}\n`),
      });
      return stores;
    },
    services() {
      services ??= createOwnerServices(
        opened.stores(),
        serviceContext(() => config),
      );
      return services;
    },
    close() {
      stores?.close();
      stores = undefined;
      services = undefined;
    },
  };
  return opened;
}

/** The services' surroundings from the configuration in force: the clock, the owner's zone and targets. */
export function serviceContext(config: () => WrenConfig): ServiceContext {
  return {
    now: () => Date.now(),
    timezone: () => config().agent.timezone,
    defaultTargets: () => {
      const { deliverTo } = config().proactive;
      return deliverTo.length ? deliverTo : ['cli:terminal'];
    },
  };
}

/** Runs `work` with an opened home and closes it afterwards, whatever happens. */
export async function withHome<T>(
  home: string,
  work: (opened: OpenedHome) => T | Promise<T>,
  options: { env?: NodeJS.ProcessEnv } = {},
): Promise<T> {
  const opened = openHome(home, options);
  try {
    return await work(opened);
  } finally {
    opened.close();
  }
}
