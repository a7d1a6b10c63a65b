import type { MailWatchAccount } from '../config/mail-watch-config.js';
import { AccountWatcher, type MailWatchDeps } from './account-watcher.js';

/** The running watchers of `mail_watch:`, stopped together. */
export interface MailWatch {
  readonly watchers: readonly AccountWatcher[];
  stop(): Promise<void>;
}

/**
 * Starts one watcher per account (`wren start`). Accounts are read once: an edit of `mail_watch:` applies at
 * the next start.
 */
export function startMailWatch(accounts: readonly MailWatchAccount[], deps: MailWatchDeps): MailWatch {
  const watchers = accounts.map((account) => new AccountWatcher(account, deps));
  for (const watcher of watchers) watcher.start();
  deps.logger.info({ accounts: accounts.map((account) => account.name) }, 'mail watch started');
  return {
    watchers,
    async stop() {
      await Promise.all(watchers.map((watcher) => watcher.stop()));
    },
  };
}
