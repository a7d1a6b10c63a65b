import { type FSWatcher, watch } from 'node:fs';
import { resolve } from 'node:path';
import type { Env } from '../util/interpolate.js';
import { loadConfig } from './load-config.js';
import type { PresetSource } from './preset-source.js';
import type { WrenConfig } from './wren-config.js';

export interface WatchConfigOptions {
  /** Called with each new valid config that differs from the one in force. */
  onChange(config: WrenConfig): void;
  /** Called when an edit is invalid (a ConfigError: the last good config stays in force) or watching fails. */
  onError(error: Error): void;
  /** Called after every reload that found a valid file, changed or not (clears a shown error). */
  onValid?(): void;
  /**
   * Called once when a valid file follows a rejected edit (after `onChange` when it changed the config), so
   * the owner who saw the rejection also hears that it is over.
   */
  onRecovered?(changed: boolean): void;
  /** Quiet period after the last file event before reloading; default 300 ms. */
  debounceMs?: number;
  /** Environment for `${VAR}` (default `process.env`); read again on every reload. */
  env?: Env;
  /** The config in force now; loaded (and any error reported through onError) when omitted. */
  current?: WrenConfig;
  presets?: PresetSource;
}

export interface ConfigWatcher {
  /** The last good config (undefined only when none has loaded yet). */
  current(): WrenConfig | undefined;
  /** Stops watching; pending reloads are dropped. Idempotent. */
  close(): void;
}

const WATCHED = new Set(['config.yaml', '.env']);

/**
 * Watches the home folder (editors often save by renaming a temp file over the original, which a watch on the
 * file itself would miss) for changes to `config.yaml` and `.env`, debounces them and reloads. A valid
 * change that alters the config calls `onChange`; an invalid one calls `onError` and keeps the last good
 * config. Errors thrown by `onChange` are passed to `onError`. The watcher does not keep the process alive.
 * @throws the file-system error when the home folder cannot be watched (e.g. it does not exist).
 */
export function watchConfig(home: string, options: WatchConfigOptions): ConfigWatcher {
  const absoluteHome = resolve(home);
  const debounceMs = options.debounceMs ?? 300;
  const presets = options.presets ? { presets: options.presets } : {};
  const load = () => loadConfig(absoluteHome, options.env ?? process.env, presets);
  let current = options.current;
  let snapshot = current ? JSON.stringify(current) : undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  /** The last load failed: the next valid one is a recovery. */
  let rejected = false;

  const reload = () => {
    timer = undefined;
    if (closed) return;
    let next: WrenConfig;
    try {
      next = load();
    } catch (error) {
      rejected = true;
      options.onError(error as Error);
      return;
    }
    options.onValid?.();
    const text = JSON.stringify(next);
    const changed = text !== snapshot;
    if (changed) {
      current = next;
      snapshot = text;
      try {
        options.onChange(next);
      } catch (error) {
        options.onError(error as Error);
      }
    }
    if (rejected) {
      rejected = false;
      options.onRecovered?.(changed);
    }
  };

  if (!current) {
    try {
      current = load();
      snapshot = JSON.stringify(current);
    } catch (error) {
      rejected = true;
      queueMicrotask(() => options.onError(error as Error));
    }
  }

  const watcher: FSWatcher = watch(absoluteHome, { persistent: false }, (_event, filename) => {
    if (closed || (filename && !WATCHED.has(filename.toString()))) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(reload, debounceMs);
    timer.unref();
  });
  watcher.on('error', (error) => {
    if (!closed) options.onError(error);
  });

  return {
    current: () => current,
    close() {
      if (closed) return;
      closed = true;
      if (timer) clearTimeout(timer);
      watcher.close();
    },
  };
}
