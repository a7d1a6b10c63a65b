import type { OpenedHome } from '../app/open-home.js';
import type { OwnerServices } from '../services/owner-services.js';

/**
 * Runs `work` on the owner's services of `home`, opened for this command only and closed afterwards,
 * whatever happens. The home's modules (and the database driver) load here, on first use, so `wren --help`
 * never pays for them.
 * @throws ConfigError or StoreError, as openHome does.
 */
export async function withServices<T>(
  home: string,
  work: (services: OwnerServices, opened: OpenedHome) => T | Promise<T>,
): Promise<T> {
  const { withHome } = await import('../app/open-home.js');
  return withHome(home, (opened) => work(opened.services(), opened));
}
