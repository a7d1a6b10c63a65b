import type { ReminderStore, Stores } from '../store/open-stores.js';
import type { ServiceContext } from './service-context.js';

export type { Reminder } from '../store/reminder-repository.js';
export type ReminderService = ReminderStore;

export function createReminderService(
  stores: Pick<Stores, 'reminders'>,
  _context: ServiceContext,
): ReminderService {
  return stores.reminders;
}
