import { effect, signal } from '@preact/signals';
import { listReminders } from './api';
import { liveEpoch, nextDue } from './live';
import type { Reminder } from './types';

/**
 * The active reminder that rings next (for the sidebar's "Next reminder: …"), or null when none is
 * scheduled. The live connection only says *when* the scheduler next runs (`next-due`), not what; so the
 * reminders are re-read whenever that time changes (a reminder rang, one was added or moved) and after a
 * reconnect.
 */
export const nextReminder = signal<Reminder | null>(null);

/** Starts following; returns the function that stops. Call it once per sign-in. */
export function trackNextReminder(): () => void {
  let asked = 0;
  const stop = effect(() => {
    // Read both so the effect runs again when either changes.
    void nextDue.value;
    void liveEpoch.value;
    const mine = ++asked;
    listReminders(false).then(
      (reminders) => {
        if (mine !== asked) return;
        const upcoming = reminders.filter((item) => item.status === 'active' && item.nextAt !== undefined);
        upcoming.sort((a, b) => (a.nextAt ?? 0) - (b.nextAt ?? 0));
        nextReminder.value = upcoming[0] ?? null;
      },
      () => {
        // Offline or signed out: keep what is shown; the next change asks again.
      },
    );
  });
  return () => {
    asked++;
    stop();
    nextReminder.value = null;
  };
}
