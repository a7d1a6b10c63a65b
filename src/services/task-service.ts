import type { Stores, TaskStore } from '../store/open-stores.js';
import type { Task } from '../store/task-repository.js';
import type { ServiceContext } from './service-context.js';

export type { Task };
export type TaskService = TaskStore;

export function createTaskService(stores: Pick<Stores, 'tasks'>, _context: ServiceContext): TaskService {
  return stores.tasks;
}
