import type { ConversationStore, Stores } from '../store/open-stores.js';
import type { ServiceContext } from './service-context.js';

/** The stored conversations as the owner browses them: the newest sessions, their titles, their messages. */
export type SessionService = Pick<ConversationStore, 'listSessions' | 'getSession' | 'recentMessages'> &
  Partial<Pick<ConversationStore, 'sessionTitles'>>;

export function createSessionService(
  stores: Pick<Stores, 'sessions'>,
  _context: ServiceContext,
): SessionService {
  return stores.sessions;
}
