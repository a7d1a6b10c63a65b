import type { OutboxRun } from '../store/outbox-repository.js';
import type { OutboxStore, ReminderStore } from '../store/ports.js';
import type { Reminder } from '../store/reminder-repository.js';
import { claimOccurrence, type Schedule } from '../util/schedule.js';
import type { DueSource } from './scheduler.js';

/** The schedule a reminder follows. */
export function scheduleOf(reminder: Pick<Reminder, 'at' | 'cron' | 'timezone'>): Schedule {
  return reminder.cron !== undefined
    ? { cron: reminder.cron, timezone: reminder.timezone }
    : { at: reminder.at ?? 0 };
}

/** The outbox key of one occurrence: `reminder:<id>:<ISO time of the occurrence>`. */
export function reminderKey(id: number, dueAt: number): string {
  return `reminder:${id}:${new Date(dueAt).toISOString()}`;
}

/**
 * Due reminders as outbox runs. Each due reminder is claimed under its occurrence's key together with its
 * advance (to the next occurrence after now, or done), so it fires once even when two processes tick at the
 * same moment, and once after downtime however many occurrences were missed (that run is marked late).
 * Reminders are never autonomous: they are the owner's, so they always surface and ignore quiet hours.
 */
export function reminderSource(deps: { reminders: ReminderStore; outbox: OutboxStore }): DueSource {
  return {
    name: 'reminders',
    claimDue(now) {
      const runs: OutboxRun[] = [];
      for (const reminder of deps.reminders.due(now)) {
        const dueAt = reminder.nextAt!;
        const claim = claimOccurrence(scheduleOf(reminder), dueAt, now);
        const run = deps.outbox.claim(
          {
            sourceKey: reminderKey(reminder.id, dueAt),
            kind: 'reminder',
            ref: String(reminder.id),
            dueAt,
            late: claim.late,
            payload: {
              title: 'Reminder',
              text: reminder.text,
              mode: reminder.mode,
              autonomous: false,
              deliverTo: reminder.deliverTo,
              ...(reminder.sessionId ? { sessionId: reminder.sessionId } : {}),
            },
          },
          () => deps.reminders.advance(reminder.id, dueAt, claim.next),
        );
        if (run) runs.push(run);
      }
      return runs;
    },
    nextDue: () => deps.reminders.nextDue(),
  };
}
