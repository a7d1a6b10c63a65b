import type { ComponentChildren } from 'preact';
import { CodeText } from '../../components/code-text';
import type { Settings } from '../../types';

/** A field of config.yaml the Preferences section edits; ids and hints are derived from its name. */
export type Field = keyof Omit<Settings, 'configError'>;

/** What the last save of the field did: why it was refused, or that it was saved. */
function FieldOutcome({ field, error, saved }: { field: Field; error: string | undefined; saved: boolean }) {
  if (error) {
    return (
      <p id={`${field}-error`} class="field-error" role="alert">
        <CodeText text={error} />
      </p>
    );
  }
  return saved ? (
    <p class="field-ok" role="status">
      Saved to config.yaml.
    </p>
  ) : null;
}

/** What a page binds a {@link SelectSetting} to: its field, value and save state. */
export type SelectBinding = Pick<
  Parameters<typeof SelectSetting>[0],
  'field' | 'value' | 'saving' | 'saved' | 'error' | 'onChange'
>;

/** What a page binds a {@link TextSetting} to: its field, draft text and save state. */
export type TextBinding = Pick<
  Parameters<typeof TextSetting>[0],
  'field' | 'value' | 'changed' | 'saving' | 'saved' | 'error' | 'onInput' | 'onSave'
>;

/** A choice that saves as soon as it changes. */
export function SelectSetting({
  field,
  label,
  hint,
  value,
  saving,
  saved,
  error,
  onChange,
  children,
}: {
  field: Field;
  label: string;
  hint: string;
  value: string;
  saving: boolean;
  saved: boolean;
  error: string | undefined;
  onChange: (value: string) => void;
  children: ComponentChildren;
}) {
  return (
    <div class="setting">
      <label for={`setting-${field}`} class="field-label">
        {label}
      </label>
      <select
        id={`setting-${field}`}
        value={value}
        disabled={saving}
        aria-describedby={`${field}-hint`}
        onChange={(event) => onChange(event.currentTarget.value)}
      >
        {children}
      </select>
      <p id={`${field}-hint`} class="hint">
        {hint}
      </p>
      <FieldOutcome field={field} error={error} saved={saved} />
    </div>
  );
}

/** A text that saves with its own Save button (or Enter), enabled only when the text differs. */
export function TextSetting({
  field,
  label,
  placeholder,
  hint,
  value,
  changed,
  saving,
  saved,
  error,
  onInput,
  onSave,
}: {
  field: Field;
  label: string;
  placeholder: string;
  hint: string;
  value: string;
  changed: boolean;
  saving: boolean;
  saved: boolean;
  error: string | undefined;
  onInput: (value: string) => void;
  onSave: () => void;
}) {
  return (
    <form
      class="setting"
      onSubmit={(event) => {
        event.preventDefault();
        onSave();
      }}
    >
      <label for={`setting-${field}`} class="field-label">
        {label}
      </label>
      <div class="inline-form">
        <input
          id={`setting-${field}`}
          value={value}
          placeholder={placeholder}
          aria-invalid={error ? true : undefined}
          aria-describedby={`${field}-hint${error ? ` ${field}-error` : ''}`}
          onInput={(event) => onInput(event.currentTarget.value)}
        />
        <button
          type="submit"
          class="btn"
          disabled={!changed || saving}
          aria-label={`Save ${label.toLowerCase()}`}
        >
          {saving ? 'Saving…' : 'Save'}
        </button>
      </div>
      <p id={`${field}-hint`} class="hint">
        {hint}
      </p>
      <FieldOutcome field={field} error={error} saved={saved} />
    </form>
  );
}
