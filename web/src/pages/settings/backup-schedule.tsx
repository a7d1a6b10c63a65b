import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { getSettings } from '../../api';
import { ErrorNote, Loading } from '../../components/common';
import { liveEpoch } from '../../live';
import { errorText } from '../../state';
import type { BackupSchedule, RetentionDays, SettingsView } from '../../types';

/** The kinds of old rows the daily prune deletes, named as the owner knows them (docs/operations.md). */
const KEPT: Array<[keyof RetentionDays, string]> = [
  ['messagesDays', 'Idle chat sessions'],
  ['outboxDays', 'Finished scheduler runs'],
  ['auditDays', 'Approval audit log'],
  ['feedDays', 'Activity feed'],
  ['execLogDays', 'Saved command output'],
];

const days = (count: number) => (count === 0 ? 'forever' : `${count} day${count === 1 ? '' : 's'}`);

function ScheduleLine({ backup }: { backup: BackupSchedule }) {
  if (!backup.scheduled) {
    return (
      <p>
        No scheduled backups — add <code>backup:</code> to config.yaml (docs/operations.md).
      </p>
    );
  }
  return (
    <p>
      Scheduled backups: every {backup.every}, keeping {backup.keep}, in <code>{backup.to}</code>. They never
      include secrets; older scheduled ones are deleted.
    </p>
  );
}

/**
 * The scheduled-backup configuration and the retention ages, read-only: `backup:` and `retention:` are
 * edited in config.yaml by hand. Read from `GET /api/settings` (defaults applied), again after a reconnect.
 */
export function BackupSchedulePanel() {
  const [settings, setSettings] = useState<SettingsView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    getSettings().then(
      (value) => {
        setSettings(value);
        setError(null);
      },
      (failure) => setError(errorText(failure)),
    );
  useEffect(() => {
    void load();
  }, [liveEpoch.value]);

  if (!settings) return error ? <ErrorNote message={error} onRetry={load} /> : <Loading />;
  return (
    <div class="setting">
      <ScheduleLine backup={settings.backup} />
      <p id="retention-title" class="field-label">
        Kept before the daily prune
      </p>
      <dl class="facts-list" aria-labelledby="retention-title">
        {KEPT.map(([key, label]) => (
          <Fragment key={key}>
            <dt>{label}</dt>
            <dd>{days(settings.retention[key])}</dd>
          </Fragment>
        ))}
      </dl>
      <p class="hint">
        Both are edited in config.yaml (<code>backup:</code> and <code>retention:</code>; see
        docs/operations.md); 0 days there keeps that kind forever. Tasks, memos, goals, reminders and the
        memory files are never pruned.
      </p>
    </div>
  );
}
