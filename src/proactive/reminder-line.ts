import type { Reminder } from '../store/reminder-repository.js';
import { describeAt } from './describe-at.js';

/** One reminder as a line: `#3 Tue 2026-12-01 09:00 (Europe/Berlin) · every day at 09:00 · agent → telegram:1 · text`. */
export function reminderLine(reminder: Reminder): string {
  const next =
    reminder.nextAt !== undefined ? describeAt(reminder.nextAt, reminder.timezone) : reminder.status;
  const repeat = reminder.cron ? ` · cron "${reminder.cron}"` : '';
  const mode = reminder.mode === 'agent' ? ' · agent' : '';
  return `#${reminder.id} ${next}${repeat}${mode} → ${reminder.deliverTo.join(', ') || 'the feed'} · ${reminder.text}`;
}
