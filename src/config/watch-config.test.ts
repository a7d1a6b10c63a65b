// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} placeholders are the literal text under test
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../util/config-error.js';
import { loadConfig } from './load-config.js';
import { type ConfigWatcher, watchConfig } from './watch-config.js';
import type { WrenConfig } from './wren-config.js';

/** Polls until `check` returns a value (not a fixed sleep); fails after `timeoutMs`. */
async function waitFor<T>(check: () => T | undefined, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting for the watcher');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

let home: string;
let watcher: ConfigWatcher | undefined;
const changes: WrenConfig[] = [];
const errors: Error[] = [];

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'wren-watch-'));
  changes.length = 0;
  errors.length = 0;
});
afterEach(() => {
  watcher?.close();
  rmSync(home, { recursive: true, force: true });
});

const writeConfig = (text: string) => writeFileSync(join(home, 'config.yaml'), text);

function start(env: Record<string, string> = {}): ConfigWatcher {
  watcher = watchConfig(home, {
    env,
    debounceMs: 20,
    onChange: (config) => changes.push(config),
    onError: (error) => errors.push(error),
  });
  return watcher;
}

describe('watchConfig', () => {
  it('reloads after a valid edit', async () => {
    writeConfig('gateway:\n  port: 1000\n');
    const active = start();
    expect(active.current()?.gateway.port).toBe(1000);
    writeConfig('gateway:\n  port: 2000\n');
    const config = await waitFor(() => changes[0]);
    expect(config.gateway.port).toBe(2000);
    expect(active.current()).toBe(config);
  });

  it('sees a save done by renaming a temp file over config.yaml', async () => {
    writeConfig('gateway:\n  port: 1000\n');
    start();
    writeFileSync(join(home, '.config.yaml.swp'), 'gateway:\n  port: 3000\n');
    renameSync(join(home, '.config.yaml.swp'), join(home, 'config.yaml'));
    expect((await waitFor(() => changes[0])).gateway.port).toBe(3000);
  });

  it('reports an invalid edit and keeps the last good config', async () => {
    writeConfig('gateway:\n  port: 1000\n');
    const active = start();
    writeConfig('gateway:\n  prot: 2000\n');
    const error = await waitFor(() => errors[0]);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain('gateway.prot: unknown key (did you mean port?)');
    expect(active.current()?.gateway.port).toBe(1000);
    writeConfig('gateway:\n  port: 4000\n');
    expect((await waitFor(() => changes[0])).gateway.port).toBe(4000);
    expect(changes).toHaveLength(1);
  });

  it('says a file is valid again even when it is back to the config in force (a reverted typo)', async () => {
    writeConfig('gateway:\n  port: 1000\n');
    let valid = 0;
    watcher = watchConfig(home, {
      env: {},
      debounceMs: 20,
      onChange: (config) => changes.push(config),
      onError: (error) => errors.push(error),
      onValid: () => {
        valid++;
      },
    });
    writeConfig('gateway:\n  prot: 1000\n');
    await waitFor(() => errors[0]);
    writeConfig('gateway:\n  port: 1000\n');
    await waitFor(() => (valid > 0 ? true : undefined));
    expect(changes).toEqual([]);
  });

  it('says once that a rejected edit is fixed: applied when it changed the config, else as it was', async () => {
    writeConfig('gateway:\n  port: 1000\n');
    const recovered: boolean[] = [];
    watcher = watchConfig(home, {
      env: {},
      debounceMs: 20,
      onChange: (config) => changes.push(config),
      onError: (error) => errors.push(error),
      onRecovered: (changed) => recovered.push(changed),
    });
    writeConfig('gateway:\n  port: [not, a, port]\n');
    await waitFor(() => errors[0]);
    writeConfig('gateway:\n  port: 1000\n');
    await waitFor(() => recovered[0] ?? undefined);
    expect(recovered).toEqual([false]);
    writeConfig('gateway:\n  port: 1000 # a comment, still valid\n');
    writeConfig('gateway:\n  port: 2000\n');
    await waitFor(() => changes[0]);
    expect(recovered).toEqual([false]);
    writeConfig('gateway: {port: "${MISSING_VAR}"}\n');
    await waitFor(() => errors[1]);
    writeConfig('gateway:\n  port: 3000\n');
    await waitFor(() => (recovered.length > 1 ? true : undefined));
    expect(recovered).toEqual([false, true]);
    expect(changes.map((config) => config.gateway.port)).toEqual([2000, 3000]);
  });

  it('reacts to .env changes', async () => {
    writeFileSync(join(home, '.env'), 'TOKEN=first\n');
    writeConfig('gateway:\n  token: ${TOKEN}\n');
    start();
    writeFileSync(join(home, '.env'), 'TOKEN=second\n');
    expect((await waitFor(() => changes[0])).gateway.token).toBe('second');
  });

  it('starts from the given current config and stops after close', async () => {
    writeConfig('gateway:\n  port: 1000\n');
    const current = loadConfig(home, {});
    watcher = watchConfig(home, {
      env: {},
      current,
      debounceMs: 20,
      onChange: (config) => changes.push(config),
      onError: (error) => errors.push(error),
    });
    expect(watcher.current()).toBe(current);
    watcher.close();
    watcher.close();
    writeConfig('gateway:\n  port: 5000\n');
    // A second, independent watcher proves the edit was observable; the closed one must stay silent.
    const witness: WrenConfig[] = [];
    const other = watchConfig(home, {
      env: {},
      debounceMs: 20,
      current,
      onChange: (c) => witness.push(c),
      onError: () => {},
    });
    writeConfig('gateway:\n  port: 6000\n');
    await waitFor(() => witness[0]);
    other.close();
    expect(changes).toHaveLength(0);
  });
});
