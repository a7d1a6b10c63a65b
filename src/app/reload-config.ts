import { type ConfigWatcher, watchConfig } from '../config/watch-config.js';
import type { WrenConfig } from '../config/wren-config.js';
import type { Logger } from '../util/logger.js';

export interface ConfigReloadDeps {
  home: string;
  env: NodeJS.ProcessEnv;
  current: () => WrenConfig;
  logger: Logger;
  /**
   * Applies a valid edit to every part that reads it (models, tools, channels, the prompt …); returns the
   * fields the `config reloaded` log line carries.
   */
  apply: (next: WrenConfig, previous: WrenConfig) => Record<string, unknown>;
  /** Why the last edit was rejected, or undefined once config.yaml is valid again. */
  setError: (message: string | undefined) => void;
}

/**
 * Watches config.yaml and applies each valid edit live (see `apply`); an invalid edit is logged and told on
 * stderr, and the last good configuration stays in force until the file is valid again.
 */
export function reloadConfigOnEdit(deps: ConfigReloadDeps): ConfigWatcher {
  const { logger } = deps;
  return watchConfig(deps.home, {
    current: deps.current(),
    env: deps.env,
    onChange: (next) => {
      const previous = deps.current();
      const applied = deps.apply(next, previous);
      deps.setError(undefined);
      logger.level = next.log.level;
      if (JSON.stringify(next.gateway) !== JSON.stringify(previous.gateway))
        logger.warn('gateway settings changed; they apply at the next `wren start`');
      logger.info(applied, 'config reloaded');
    },
    onValid: () => deps.setError(undefined),
    onError: (error) => {
      deps.setError(error.message);
      logger.error({ error: error.message }, 'config edit rejected; keeping the last good config');
      process.stderr.write(
        `wren: config edit rejected, the last good config stays in force: ${error.message}\n`,
      );
    },
    onRecovered: (changed) => {
      logger.info({ changed }, 'config valid again after a rejected edit');
      process.stderr.write(
        `wren: config.yaml is valid again; ${changed ? 'applied' : 'it matches the config in force'}\n`,
      );
    },
  });
}
