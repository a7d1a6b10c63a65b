import type { Hono } from 'hono';
import { memoRoutes } from '../gateway/memo-routes.js';
import { memoryProposalRoutes } from '../gateway/memory-proposal-routes.js';
import { memoryRoutes } from '../gateway/memory-routes.js';
import { pushRoutes } from '../gateway/push-routes.js';
import { taskRoutes } from '../gateway/task-routes.js';
import { uploadRoutes } from '../gateway/upload-routes.js';
import type { WrenApp } from './wren-app.js';

/** What the owner-data routes use of the app (a WrenApp has it all). */
export type OwnerRoutesApp = Pick<WrenApp, 'home' | 'services' | 'config'> & {
  memory: Partial<Pick<WrenApp['memory'], 'search'>>;
  logger: Pick<WrenApp['logger'], 'info'>;
};

/**
 * Part of the composition root: the route groups the web app needs for the owner's own data, built from the
 * app, for the gateway to mount behind its host guard and token check (createGateway's `lazyRoutes`):
 *
 * - memory files, HISTORY.md and memory search over the workspace in force (`config().workspace`) and the
 *   home's database, dates in `agent.timezone`; each edit is logged by file name and size;
 * - Dream's memory proposals (accept moves the line in that workspace);
 * - tasks and memos through the task and memo services (`app.services`), the rules the `task`/`memo` tools
 *   and `wren task`/`memo` follow;
 * - uploads into the workspace inbox (logged by path and size);
 * - web push: subscriptions in the home's database (the table the push deliverer reads), the VAPID key
 *   pair of `<home>/push-vapid.json` (created on first use; only the public key leaves), and whether
 *   `proactive.push` is on.
 *
 * Reminder edits (`PATCH /api/reminders/:id`) come with the proactive routes the gateway mounts itself.
 */
export function ownerDataRoutes(app: OwnerRoutesApp): Hono[] {
  const workspace = () => app.config().workspace;
  const memory = memoryRoutes({
    workspace,
    files: app.services.memoryFiles,
    messages: app.services.memorySearch.messages,
    timezone: () => app.config().agent.timezone,
    ...(app.memory.search ? { search: app.memory.search } : {}),
    onEdit: ({ name, size }) => app.logger.info({ file: name, size }, 'memory file replaced over the API'),
  });
  const upload = uploadRoutes({
    workspace,
    onSaved: ({ path, size, session }) =>
      app.logger.info({ path, size, ...(session ? { session } : {}) }, 'file uploaded over the API'),
  });
  const push = pushRoutes({
    subscriptions: app.services.push,
    publicKey: async () => {
      // web-push (and its crypto) loads on first use, as the push deliverer loads it.
      const { loadVapidKeys } = await import('../proactive/web-push.js');
      return loadVapidKeys(app.home).publicKey;
    },
    enabled: () => app.config().proactive.push,
  });
  const proposals = memoryProposalRoutes({ proposals: app.services.memoryProposals, workspace });
  return [memory, proposals, taskRoutes(app.services.tasks), memoRoutes(app.services.memos), upload, push];
}
