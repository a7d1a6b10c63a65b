import { rotateGatewayToken } from '../gateway/gateway-token.js';
import type { Stores } from '../store/open-stores.js';
import { defineLazy } from '../util/define-lazy.js';
import { createGoalService, type GoalService } from './goal-service.js';
import { createGrantService, type GrantService } from './grant-service.js';
import { createJobService, type JobService } from './job-service.js';
import { createMcpPinService, type McpPinService } from './mcp-pin-service.js';
import { createMemoService, type MemoService } from './memo-service.js';
import { createMemoryFileService, type MemoryFileService } from './memory-file-service.js';
import { createMemoryProposalService, type MemoryProposalService } from './memory-proposal-service.js';
import { createMemorySearchService, type MemorySearchService } from './memory-search-service.js';
import { createPairingService, type PairingService } from './pairing-service.js';
import { createPushService, type PushService } from './push-service.js';
import { createReminderService, type ReminderService } from './reminder-service.js';
import type { ServiceContext } from './service-context.js';
import { createSessionService, type SessionService } from './session-service.js';
import { createStatusService, type StatusService } from './status-service.js';
import { createTaskService, type TaskService } from './task-service.js';

export type { ServiceContext };

/**
 * Every action the owner takes on their data, one implementation each, shared by the CLI, the gateway's
 * routes and the tools: what a face adds is only how it asks and how it shows the answer. Built over a
 * home's stores (the only way the faces reach storage).
 */
export interface OwnerServices {
  readonly memos: MemoService;
  readonly tasks: TaskService;
  readonly reminders: ReminderService;
  readonly jobs: JobService;
  readonly goals: GoalService;
  readonly grants: GrantService;
  readonly pairings: PairingService;
  readonly push: PushService;
  readonly mcpPins: McpPinService;
  readonly sessions: SessionService;
  readonly memorySearch: MemorySearchService;
  readonly memoryFiles: MemoryFileService;
  readonly memoryProposals: MemoryProposalService;
  readonly status: StatusService;
  /** `wren token --rotate`: a new random gateway token (returned once; only its hash is kept). */
  readonly gatewayToken: { rotate(): string };
}

/**
 * The services over `stores`, each built on first use (a command that needs one prepares no other
 * statements, and loads no other module's rules).
 */
export function createOwnerServices(stores: Stores, context: ServiceContext): OwnerServices {
  const services = {} as OwnerServices;
  const define = <K extends keyof OwnerServices>(name: K, build: () => OwnerServices[K]) =>
    defineLazy(services, name, build);
  define('memos', () => createMemoService(stores, context));
  define('tasks', () => createTaskService(stores, context));
  define('reminders', () => createReminderService(stores, context));
  define('jobs', () => createJobService(stores, context));
  define('goals', () => createGoalService(stores, context));
  define('grants', () => createGrantService(stores, context));
  define('pairings', () => createPairingService(stores, context));
  define('push', () => createPushService(stores, context));
  define('mcpPins', () => createMcpPinService(stores, context));
  define('sessions', () => createSessionService(stores, context));
  define('memorySearch', () => createMemorySearchService(stores, context));
  define('memoryFiles', () => createMemoryFileService(stores, context));
  define('memoryProposals', () => createMemoryProposalService(stores, context));
  define('status', () => createStatusService(stores, context));
  define('gatewayToken', () => ({ rotate: () => rotateGatewayToken(stores.settings).generated }));
  return services;
}
