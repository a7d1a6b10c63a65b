import type { OpenedHome } from '../app/open-home.js';
import type { Stores } from '../store/open-stores.js';

/**
 * Runs `work` on the stores of `home`, opened for this command only and closed afterwards, whatever happens.
 * The home's modules (and the database driver) load here, on first use, so `wren --help` never pays for them.
 * @throws ConfigError or StoreError, as openHome does.
 */
export async function withStores<T>(
  home: string,
  work: (stores: Stores, opened: OpenedHome) => T | Promise<T>,
): Promise<T> {
  const { withHome } = await import('../app/open-home.js');
  return withHome(home, (opened) => work(opened.stores(), opened));
}
