import type { ComponentChildren } from 'preact';
import { errorText, toast } from '../state';
import { FieldError } from './field-error';

/**
 * One row of a list page (reminders, tasks, memos): its content, then Edit and a second action (Delete,
 * Cancel …); while `editing`, the row holds only its edit form. The caller keeps `editing` and the draft, so a
 * draft outlives Discard and shows again on the next Edit. Button labels name the row: `Edit <label>`,
 * `<removeText> <label>`.
 */
export function EditableRow({
  class: extra,
  label,
  editing,
  form,
  onEdit,
  removeText,
  onRemove,
  actions = true,
  lead,
  children,
}: {
  /** Classes besides `row`. */
  class?: string;
  label: string;
  editing: boolean;
  form: ComponentChildren;
  onEdit: () => void;
  removeText: string;
  onRemove: () => void;
  /** False shows neither button (a reminder that is done). */
  actions?: boolean;
  /** Before the row's main part (a task's checkbox). */
  lead?: ComponentChildren;
  children: ComponentChildren;
}) {
  if (editing) return <li class="row editing">{form}</li>;
  return (
    <li class={extra ? `row ${extra}` : 'row'}>
      {lead}
      <div class="row-main">{children}</div>
      {actions ? (
        <div class="row-actions">
          <button type="button" class="btn small" aria-label={`Edit ${label}`} onClick={onEdit}>
            Edit
          </button>
          <button
            type="button"
            class="btn small danger-outline"
            aria-label={`${removeText} ${label}`}
            onClick={onRemove}
          >
            {removeText}
          </button>
        </div>
      ) : null}
    </li>
  );
}

/** Runs a row's one-click change (delete, cancel, done), then `then` (re-read the list); a failure is a toast. */
export async function rowAction(work: () => Promise<unknown>, then: () => void): Promise<void> {
  try {
    await work();
    then();
  } catch (failure) {
    toast(errorText(failure), 'error');
  }
}

/**
 * The edit form of a row (or of a page's record, with `class`): the fields, why the last save failed, then
 * Discard and Save.
 */
export function EditForm({
  class: className = 'row-form',
  label,
  onSubmit,
  onDiscard,
  error = null,
  saveDisabled,
  children,
}: {
  class?: string;
  /** The form's accessible name. */
  label: string;
  onSubmit: (event: Event) => void;
  onDiscard: () => void;
  error?: string | null;
  saveDisabled?: boolean;
  children: ComponentChildren;
}) {
  return (
    <form class={className} onSubmit={onSubmit} aria-label={label}>
      {children}
      <FieldError message={error} />
      <div class="form-actions">
        <button type="button" class="btn ghost" onClick={onDiscard}>
          Discard
        </button>
        <button type="submit" class="btn primary" disabled={saveDisabled}>
          Save
        </button>
      </div>
    </form>
  );
}
