import { useEffect, useRef, useState } from 'preact/hooks';
import { finishOnboarding } from '../api';
import { errorText } from '../state';
import type { OnboardingPreset, OnboardingResult } from '../types';

/**
 * First-run setup in a modal <dialog> (focus trapped, Escape skips): pick a provider, paste its key (a
 * password field; the key goes to the server once and is never shown again — it is kept in `.env`, and
 * config.yaml only names its variable), optionally a model id and base URL. The server tests the model and
 * answers with the result; a failed test saves nothing unless the owner chooses "Save anyway".
 */
export function OnboardingDialog({ presets, onClose }: { presets: OnboardingPreset[]; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [presetId, setPresetId] = useState(presets[0]?.id ?? '');
  const [key, setKey] = useState('');
  const [model, setModel] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<OnboardingResult | null>(null);
  const preset = presets.find((item) => item.id === presetId);

  useEffect(() => {
    const box = dialog.current;
    if (box && !box.open) box.showModal();
    return () => box?.close();
  }, []);

  const submit = async (force = false) => {
    if (!preset) return;
    setBusy(true);
    setError(null);
    try {
      const answer = await finishOnboarding({
        preset: preset.id,
        ...(key ? { key } : {}),
        ...(model.trim() ? { model: model.trim() } : {}),
        ...(baseUrl.trim() ? { baseUrl: baseUrl.trim() } : {}),
        ...(force ? { force: true } : {}),
      });
      setResult(answer);
      if (answer.saved !== false) setKey('');
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };

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
          <div class="dialog-actions">
            <button type="button" class="btn primary" onClick={onClose}>
              Done
            </button>
          </div>
        </div>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void submit();
          }}
        >
          <p class="muted">
            Wren needs a language model to talk to. Pick one; you can add more later in config.yaml.
          </p>
          <fieldset class="preset-grid">
            <legend>Provider</legend>
            {presets.map((item) => (
              <label key={item.id} class={`preset${item.id === presetId ? ' selected' : ''}`}>
                <input
                  type="radio"
                  name="preset"
                  value={item.id}
                  checked={item.id === presetId}
                  onChange={() => {
                    setPresetId(item.id);
                    setResult(null);
                  }}
                />
                <span class="preset-label">{item.label}</span>
                {item.local ? <span class="badge">local</span> : null}
              </label>
            ))}
          </fieldset>
          {preset?.docs ? <p class="hint">{preset.docs}</p> : null}
          {preset?.keyVar ? (
            <div class="field">
              <label for="onboarding-key" class="field-label">
                API key{preset.needsKey ? '' : ' (optional)'}
              </label>
              <input
                id="onboarding-key"
                type="password"
                autoComplete="off"
                value={key}
                onInput={(event) => setKey(event.currentTarget.value)}
              />
              <p class="hint">
                Stored in Wren’s .env as {preset.keyVar}; it is never shown again. Leave empty if that
                variable is already set.
              </p>
            </div>
          ) : null}
          <div class="field-row">
            <div class="field">
              <label for="onboarding-model" class="field-label">
                Model (optional)
              </label>
              <input
                id="onboarding-model"
                value={model}
                placeholder={preset?.defaultModel ?? ''}
                onInput={(event) => setModel(event.currentTarget.value)}
              />
            </div>
            <div class="field">
              <label for="onboarding-url" class="field-label">
                Base URL (optional)
              </label>
              <input
                id="onboarding-url"
                type="url"
                value={baseUrl}
                placeholder={preset?.baseUrl ?? 'https://host/v1'}
                onInput={(event) => setBaseUrl(event.currentTarget.value)}
              />
            </div>
          </div>
          {result && result.saved === false ? (
            <div class="error-note" role="alert">
              <span>The test failed: {result.test?.error ?? 'no answer'}. Nothing was saved.</span>
              <button type="button" class="btn small" disabled={busy} onClick={() => submit(true)}>
                Save anyway
              </button>
            </div>
          ) : null}
          {error ? (
            <p class="field-error" role="alert">
              {error}
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
      )}
    </dialog>
  );
}
