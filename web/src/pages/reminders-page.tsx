import { useState } from 'preact/hooks';
import { cancelReminder, createReminder, listReminders, updateReminder } from '../api';
import { Badge, Empty, PageHeader, Time, useTicker } from '../components/common';
import { EditableRow, EditForm, rowAction } from '../components/editable-row';
import { Field } from '../components/field';
import { FieldError } from '../components/field-error';
import { ListSection } from '../components/list-section';
import { useList } from '../components/use-list';
import { useSubmit } from '../components/use-submit';
import { cronText } from '../cron-text';
import { localClockTimes, longTime, ownerZone, relativeTime } from '../format';
import { liveEpoch, nextDue } from '../live';
import { toast } from '../state';
import type { Reminder, ReminderMode } from '../types';

const WHEN_HINT = 'in 20m · tomorrow 9:00 · every weekday at 7:30';

/**
 * The confirmation of a scheduled reminder in the app's own time format: the first time from `nextAt`, and
 * for a repeating one the server's reading of the rule ("every weekday at 07:30 (Europe/Berlin); …" → "every
 * weekday at 7:30 AM"), its zone named only when it is not the owner's.
 */
export function scheduledText(reminder: Reminder, description: string): string {
  const first = reminder.nextAt ? longTime(reminder.nextAt) : undefined;
  if (!reminder.cron) return first ? `Scheduled for ${first}.` : `Scheduled: ${description}`;
  const rule = (description.split(';')[0] ?? '').trim();
  const zone = / \(([^()]+)\)$/.exec(rule)?.[1];
  const reading = localClockTimes(zone === ownerZone.value ? rule.slice(0, -(zone?.length ?? 0) - 3) : rule);
  return first ? `Scheduled ${reading}; first ${first}.` : `Scheduled ${reading}.`;
}

function ModeSelect({
  id,
  value,
  onChange,
}: {
  id: string;
  value: ReminderMode;
  onChange: (mode: ReminderMode) => void;
}) {
  return (
    <select id={id} value={value} onChange={(event) => onChange(event.currentTarget.value as ReminderMode)}>
      <option value="notify">Notify me</option>
      <option value="agent">Let Wren act</option>
    </select>
  );
}

/** What the last submit did: the server's reading of the time, or why it refused. */
function Outcome({ error, done }: { error: string | null; done: string | null }) {
  return (
    <>
      <FieldError message={error} />
      {done ? (
        <p class="field-ok" role="status">
          {done}
        </p>
      ) : null}
    </>
  );
}

/** The create form: text, when (as people write it), mode. Shows the server's reading of `when`. */
function NewReminder({ onAdded }: { onAdded: () => void }) {
  const [text, setText] = useState('');
  const [when, setWhen] = useState('');
  const [mode, setMode] = useState<ReminderMode>('notify');
  const [done, setDone] = useState<string | null>(null);
  const { busy, error, submit } = useSubmit(
    async () => {
      setDone(null);
      const answer = await createReminder({ text: text.trim(), when: when.trim(), mode });
      setDone(scheduledText(answer.reminder, answer.description));
      setText('');
      setWhen('');
      onAdded();
    },
    Boolean(text.trim() && when.trim()),
  );

  return (
    <form class="card form-card" onSubmit={submit} aria-labelledby="new-reminder-title">
      <h2 id="new-reminder-title">New reminder</h2>
      <div class="field-row">
        <Field id="reminder-text" grow label="Reminder">
          <input
            id="reminder-text"
            value={text}
            placeholder="Call Ana"
            required
            maxLength={2000}
            onInput={(event) => setText(event.currentTarget.value)}
          />
        </Field>
        <Field id="reminder-when" label="When">
          <input
            id="reminder-when"
            value={when}
            placeholder="tomorrow 9:00"
            required
            maxLength={200}
            aria-describedby="reminder-when-hint"
            onInput={(event) => setWhen(event.currentTarget.value)}
          />
        </Field>
        <Field id="reminder-mode" label="Mode">
          <ModeSelect id="reminder-mode" value={mode} onChange={setMode} />
        </Field>
      </div>
      <p id="reminder-when-hint" class="hint">
        Write it as you would say it: {WHEN_HINT}. “Let Wren act” runs the text as a task with tools.
      </p>
      <Outcome error={error} done={done} />
      <div class="form-actions">
        <button type="submit" class="btn primary" disabled={busy || !text.trim() || !when.trim()}>
          {busy ? 'Adding…' : 'Add reminder'}
        </button>
      </div>
    </form>
  );
}

function schedule(reminder: Reminder, now: number) {
  if (reminder.status !== 'active') {
    return (
      <>
        <Badge tone={reminder.status === 'done' ? 'good' : 'muted'}>{reminder.status}</Badge>
        {reminder.lastFiredAt ? (
          <span>
            last ran <Time at={reminder.lastFiredAt} />
          </span>
        ) : null}
      </>
    );
  }
  return (
    <>
      {reminder.cron ? (
        <span title={`cron: ${reminder.cron}`}>
          <Badge tone="info">repeats {cronText(reminder.cron)}</Badge>
        </span>
      ) : null}
      {reminder.nextAt ? (
        <span>
          next <Time at={reminder.nextAt} /> <span class="muted">({relativeTime(reminder.nextAt, now)})</span>
        </span>
      ) : null}
    </>
  );
}

/** The edit of one reminder: kept while the row lives, so Discard and Edit again shows it as it was left. */
function useReminderEdit(reminder: Reminder, onSaved: () => void) {
  const [text, setText] = useState(reminder.text);
  const [when, setWhen] = useState('');
  const [mode, setMode] = useState<ReminderMode>(reminder.mode);
  const { busy, error, submit } = useSubmit(async () => {
    const answer = await updateReminder(reminder.id, {
      ...(text.trim() && text.trim() !== reminder.text ? { text: text.trim() } : {}),
      ...(when.trim() ? { when: when.trim() } : {}),
      ...(mode !== reminder.mode ? { mode } : {}),
    });
    if (answer.description)
      toast(scheduledText(answer.reminder, answer.description).replace(/^Scheduled/, 'Rescheduled'));
    onSaved();
  });

  return { text, setText, when, setWhen, mode, setMode, error, busy, save: submit };
}

function ReminderEditForm({
  reminder,
  edit,
  onDiscard,
}: {
  reminder: Reminder;
  edit: ReturnType<typeof useReminderEdit>;
  onDiscard: () => void;
}) {
  const prefix = `reminder-${reminder.id}`;
  return (
    <EditForm
      label={`Edit reminder ${reminder.text}`}
      onSubmit={edit.save}
      onDiscard={onDiscard}
      error={edit.error}
      saveDisabled={edit.busy}
    >
      <div class="field-row">
        <Field id={`${prefix}-text`} grow label="Reminder">
          <input
            id={`${prefix}-text`}
            value={edit.text}
            onInput={(event) => edit.setText(event.currentTarget.value)}
          />
        </Field>
        <Field id={`${prefix}-when`} label="New time">
          <input
            id={`${prefix}-when`}
            value={edit.when}
            placeholder="unchanged"
            onInput={(event) => edit.setWhen(event.currentTarget.value)}
          />
        </Field>
        <Field id={`${prefix}-mode`} label="Mode">
          <ModeSelect id={`${prefix}-mode`} value={edit.mode} onChange={edit.setMode} />
        </Field>
      </div>
    </EditForm>
  );
}

function ReminderRow({
  reminder,
  onChanged,
  now,
}: {
  reminder: Reminder;
  onChanged: () => void;
  now: number;
}) {
  const [editing, setEditing] = useState(false);
  const edit = useReminderEdit(reminder, () => {
    setEditing(false);
    onChanged();
  });

  const cancel = () =>
    rowAction(async () => {
      await cancelReminder(reminder.id);
      toast('Reminder cancelled.');
    }, onChanged);

  const active = reminder.status === 'active';
  return (
    <EditableRow
      {...(active ? {} : { class: 'inactive' })}
      label={`reminder ${reminder.text}`}
      editing={editing}
      form={<ReminderEditForm reminder={reminder} edit={edit} onDiscard={() => setEditing(false)} />}
      onEdit={() => setEditing(true)}
      removeText="Cancel"
      onRemove={cancel}
      actions={active}
    >
      <div class="row-title">{reminder.text}</div>
      <div class="row-meta">
        <Badge tone={reminder.mode === 'agent' ? 'info' : 'neutral'}>
          {reminder.mode === 'agent' ? 'Wren acts' : 'notify'}
        </Badge>
        {schedule(reminder, now)}
        {reminder.fired ? <span class="muted">ran {reminder.fired}×</span> : null}
      </div>
    </EditableRow>
  );
}

export function RemindersPage() {
  const [all, setAll] = useState(false);
  // The scheduler's next-due changes after every tick (a reminder fired): re-read then, too.
  const list = useList(() => listReminders(all), [all, liveEpoch.value, nextDue.value]);
  const now = useTicker(30_000);

  const due = nextDue.value;
  return (
    <div class="page">
      <PageHeader title="Reminders">
        {due !== null ? (
          <span class="muted">
            Next run <Time at={due} /> ({relativeTime(due, now)})
          </span>
        ) : null}
      </PageHeader>
      <NewReminder onAdded={list.load} />
      <ListSection
        id="reminder-list-title"
        title={all ? 'All reminders' : 'Upcoming'}
        controls={
          <label class="check">
            <input type="checkbox" checked={all} onChange={(event) => setAll(event.currentTarget.checked)} />
            Show history
          </label>
        }
        items={list.items}
        error={list.error}
        onRetry={list.load}
        empty={
          <Empty title="No reminders yet">
            Add one above, or just tell Wren in the chat: “remind me in an hour …”.
          </Empty>
        }
        row={(reminder: Reminder) => (
          <ReminderRow
            key={`${reminder.id}-${reminder.updatedAt}`}
            reminder={reminder}
            onChanged={list.load}
            now={now}
          />
        )}
      />
    </div>
  );
}
