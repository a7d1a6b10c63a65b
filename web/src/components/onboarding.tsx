import { useEffect, useRef, useState } from 'preact/hooks';
import { finishOnboarding, startBriefing } from '../api';
import { errorText } from '../state';
import type { OnboardingBriefing, OnboardingPreset, OnboardingResult } from '../types';
import { CodeText } from './code-text';
import { ServerModelPicker } from './server-models';

/**
 * First-run setup in a modal <dialog> (focus trapped, Escape skips): pick a provider, paste its key (a
 * password field; the key goes to the server once and is never shown again — it is kept in `.env`, and
 * config.yaml only names its variable), optionally a model id and base URL. The server tests the model and
 * answers with the result; a failed test saves nothing unless the owner chooses "Save anyway". Once saved,
 * one optional step offers the morning briefing; "Done" without it writes nothing more.
 */
export function OnboardingDialog({ presets, onClose }: { presets: OnboardingPreset[]; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [result, setResult] = useState<OnboardingResult | null>(null);

  useEffect(() => {
    const box = dialog.current;
    if (box && !box.open) box.showModal();
    return () => box?.close();
  }, []);

  const saved = result && result.saved !== false;

  return (
    <dialog
      ref={dialog}
      class="dialog onboarding"
      aria-labelledby="onboarding-title"
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <h2 id="onboarding-title">Set up a model</h2>
      {saved ? (
        <div class="onboarding-done">
          <p>
            Saved as model <strong>{result.model}</strong>.{' '}
            {result.test?.ok
              ? `It answered in ${result.test.latencyMs ?? '?'} ms.`
              : `It did not answer yet: ${result.test?.error ?? 'unknown error'}`}
          </p>
          <BriefingStep />
          <div class="dialog-actions">
            <button type="button" class="btn primary" onClick={onClose}>
              Done
            </button>
          </div>
        </div>
      ) : (
        <SetupForm presets={presets} result={result} onResult={setResult} onClose={onClose} />
      )}
    </dialog>
  );
}

/** `['mon', …, 'fri']` as "weekdays", all seven as "every day", else the names. Pure. */
function daysText(names: string[]): string {
  if (names.length === 7) return 'every day';
  return names.join() === 'mon,tue,wed,thu,fri' ? 'weekdays' : names.join(', ');
}

/**
 * "Would you like a morning briefing?": a time (HH:MM) and weekdays or every day, saved to config.yaml's
 * `briefing:` by the server (which refuses a bad time with a sentence shown here). Optional: leaving the
 * dialog without it writes nothing.
 */
function BriefingStep() {
  const [at, setAt] = useState('');
  const [days, setDays] = useState<'weekdays' | 'daily'>('weekdays');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<OnboardingBriefing | null>(null);

  if (saved) {
    return (
      <p class="field-ok" role="status">
        Morning briefing on: {daysText(saved.dayNames)} at {saved.at}. Change it any time in Settings.
      </p>
    );
  }
  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      setSaved(await startBriefing(at.trim(), days));
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="onboarding-briefing"
      aria-labelledby="briefing-step-title"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <h3 id="briefing-step-title">Would you like a morning briefing?</h3>
      <p class="hint">
        A short summary of your day (agenda, tasks, reminders, mail) at a time you choose. Optional: Done
        skips it.
      </p>
      <div class="field-row">
        <div class="field">
          <label for="briefing-step-at" class="field-label">
            Time
          </label>
          <input
            id="briefing-step-at"
            value={at}
            placeholder="07:30"
            aria-invalid={error ? true : undefined}
            onInput={(event) => setAt(event.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="briefing-step-days" class="field-label">
            Days
          </label>
          <select
            id="briefing-step-days"
            value={days}
            onChange={(event) => setDays(event.currentTarget.value === 'daily' ? 'daily' : 'weekdays')}
          >
            <option value="weekdays">Weekdays</option>
            <option value="daily">Every day</option>
          </select>
        </div>
      </div>
      {error ? (
        <p class="field-error" role="alert">
          <CodeText text={error} />
        </p>
      ) : null}
      <button type="submit" class="btn" disabled={busy || !at.trim()}>
        {busy ? 'Saving…' : 'Turn on the briefing'}
      </button>
    </form>
  );
}

/** The form: provider, key and model; `result` is the last test that saved nothing (or null). */
function SetupForm({
  presets,
  result,
  onResult,
  onClose,
}: {
  presets: OnboardingPreset[];
  result: OnboardingResult | null;
  onResult: (result: OnboardingResult | null) => void;
  onClose: () => void;
}) {
  const [presetId, setPresetId] = useState(presets[0]?.id ?? '');
  const [fields, setFields] = useState<ModelFieldValues>({ key: '', model: '', baseUrl: '' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const preset = presets.find((item) => item.id === presetId);

  const submit = async (force = false) => {
    if (!preset) return;
    setBusy(true);
    setError(null);
    try {
      const answer = await finishOnboarding({
        preset: preset.id,
        ...(fields.key ? { key: fields.key } : {}),
        ...(fields.model.trim() ? { model: fields.model.trim() } : {}),
        ...(fields.baseUrl.trim() ? { baseUrl: fields.baseUrl.trim() } : {}),
        ...(force ? { force: true } : {}),
      });
      onResult(answer);
      if (answer.saved !== false) setFields((current) => ({ ...current, key: '' }));
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <p class="muted">
        Wren needs a language model to talk to. Pick one; you can add more later in config.yaml.
      </p>
      <PresetPicker
        presets={presets}
        selected={presetId}
        onPick={(id) => {
          setPresetId(id);
          onResult(null);
        }}
      />
      {preset?.docs ? (
        <p class="hint">
          <CodeText text={preset.docs} />
        </p>
      ) : null}
      <ModelFields preset={preset} values={fields} onChange={setFields} />
      {result && result.saved === false ? (
        <div class="error-note" role="alert">
          <span>
            The test failed: <CodeText text={result.test?.error ?? 'no answer'} />. Nothing was saved.
          </span>
          <button type="button" class="btn small" disabled={busy} onClick={() => submit(true)}>
            Save anyway
          </button>
        </div>
      ) : null}
      {error ? (
        <p class="field-error" role="alert">
          <CodeText text={error} />
        </p>
      ) : null}
      <div class="dialog-actions">
        <button type="button" class="btn ghost" onClick={onClose}>
          Skip for now
        </button>
        <button type="submit" class="btn primary" disabled={busy || !preset}>
          {busy ? 'Testing…' : 'Test and save'}
        </button>
      </div>
    </form>
  );
}

function PresetPicker({
  presets,
  selected,
  onPick,
}: {
  presets: OnboardingPreset[];
  selected: string;
  onPick: (id: string) => void;
}) {
  return (
    <fieldset class="preset-grid">
      <legend>Provider</legend>
      {presets.map((item) => (
        <label key={item.id} class={`preset${item.id === selected ? ' selected' : ''}`}>
          <input
            type="radio"
            name="preset"
            value={item.id}
            checked={item.id === selected}
            onChange={() => onPick(item.id)}
          />
          <span class="preset-label">{item.label}</span>
          {item.local ? <span class="badge">local</span> : null}
        </label>
      ))}
    </fieldset>
  );
}

interface ModelFieldValues {
  key: string;
  model: string;
  baseUrl: string;
}

/** The key (when the provider takes one), model id and base URL, with the preset's defaults as hints. */
function ModelFields({
  preset,
  values,
  onChange,
}: {
  preset: OnboardingPreset | undefined;
  values: ModelFieldValues;
  onChange: (values: ModelFieldValues) => void;
}) {
  const set = (field: keyof ModelFieldValues) => (event: { currentTarget: HTMLInputElement }) =>
    onChange({ ...values, [field]: event.currentTarget.value });
  return (
    <>
      {preset?.keyVar ? (
        <div class="field">
          <label for="onboarding-key" class="field-label">
            API key{preset.needsKey ? '' : ' (optional)'}
          </label>
          <input
            id="onboarding-key"
            type="password"
            autoComplete="off"
            value={values.key}
            onInput={set('key')}
          />
          <p class="hint">
            {preset.needsKey
              ? `Stored in Wren’s .env as ${preset.keyVar}; it is never shown again. Leave empty if that variable is already set.`
              : `Only if the server asks for one (a server on your own machine usually does not). Stored in Wren’s .env as ${preset.keyVar}; never shown again.`}
          </p>
        </div>
      ) : null}
      <div class="field-row">
        <div class="field">
          <label for="onboarding-model" class="field-label">
            {preset?.defaultModel ? 'Model (optional)' : 'Model'}
          </label>
          <input
            id="onboarding-model"
            value={values.model}
            placeholder={preset?.defaultModel ?? ''}
            onInput={set('model')}
          />
        </div>
        <div class="field">
          <label for="onboarding-url" class="field-label">
            {preset?.baseUrl ? 'Base URL (optional)' : 'Base URL'}
          </label>
          <input
            id="onboarding-url"
            type="url"
            value={values.baseUrl}
            placeholder={preset?.baseUrl ?? 'https://host/v1'}
            onInput={set('baseUrl')}
          />
        </div>
      </div>
      {preset && (preset.id === 'custom' || preset.local) ? (
        <ServerModelPicker
          baseUrl={values.baseUrl.trim() || (preset.local ? (preset.baseUrl ?? '') : '')}
          apiKey={values.key}
          model={values.model}
          onPick={(model) => onChange({ ...values, model })}
        />
      ) : null}
    </>
  );
}
