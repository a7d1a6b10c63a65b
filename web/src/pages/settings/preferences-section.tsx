import { useEffect, useState } from 'preact/hooks';
import { getSettings, updateSettings } from '../../api';
import { ErrorNote, Loading } from '../../components/common';
import { setOwnerZone } from '../../format';
import { liveEpoch } from '../../live';
import { errorText } from '../../state';
import type { Settings, SettingsView } from '../../types';
import { BriefingSection } from './briefing-section';
import {
  type Field,
  type SelectBinding,
  SelectSetting,
  type TextBinding,
  TextSetting,
} from './setting-fields';

type SelectField = 'proactivity' | 'gateMode' | 'briefingDays';
type TextField = 'quietHours' | 'timezone' | 'briefingAt' | 'briefingWeather';

/** The text a field holds in config.yaml now (what its draft is compared with). */
const inConfig = (settings: Settings, field: TextField): string =>
  field === 'quietHours' ? (settings.quietHours ?? '') : settings[field];

/** config.yaml's everyday settings, the text being edited of each, and saving one field at a time. */
function usePreferences() {
  const [settings, setSettings] = useState<SettingsView | null>(null);
  const [draft, setDraft] = useState<Record<Field, string>>({
    proactivity: '',
    quietHours: '',
    gateMode: '',
    timezone: '',
    briefingAt: '',
    briefingDays: '',
    briefingWeather: '',
  });
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [saving, setSaving] = useState<Field | null>(null);
  /** The field saved last (its "Saved" note shows until the next edit or save). */
  const [saved, setSaved] = useState<Field | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);

  const adopt = (value: SettingsView) => {
    setSettings(value);
    setOwnerZone(value.timezone);
    setDraft({
      proactivity: value.proactivity,
      quietHours: value.quietHours ?? '',
      gateMode: value.gateMode,
      timezone: value.timezone ?? '',
      briefingAt: value.briefingAt,
      briefingDays: value.briefingDays,
      briefingWeather: value.briefingWeather,
    });
  };

  const load = () =>
    getSettings().then(
      (value) => {
        adopt(value);
        setLoadError(null);
      },
      (failure) => setLoadError(errorText(failure)),
    );
  useEffect(() => {
    void load();
  }, [liveEpoch.value]);

  const save = async (field: Field, raw: string) => {
    setSaving(field);
    setSaved(null);
    setErrors((current) => ({ ...current, [field]: undefined }));
    const value = raw.trim();
    try {
      const next = await updateSettings({
        [field]: field === 'quietHours' || field === 'timezone' ? value || null : value,
      } as Partial<Settings>);
      adopt(next);
      setSaved(field);
    } catch (failure) {
      setErrors((current) => ({ ...current, [field]: errorText(failure) }));
    } finally {
      setSaving(null);
    }
  };

  const edit = (next: Record<Field, string>) => {
    setSaved(null);
    setDraft(next);
  };

  return { settings, draft, edit, errors, saving, saved, loadError, load, save };
}

/**
 * The everyday settings (config.yaml). Each field saves on its own, so the server's 400 message (the
 * validator reads the whole file) is shown next to the field that caused it.
 */
export function PreferencesSection() {
  const { settings, draft, edit, errors, saving, saved, loadError, load, save } = usePreferences();
  if (!settings) {
    return (
      <section class="section" aria-labelledby="prefs-title">
        <h2 id="prefs-title">Preferences</h2>
        <ErrorNote message={loadError} onRetry={load} />
        {!loadError ? <Loading /> : null}
      </section>
    );
  }

  const select = (field: SelectField): SelectBinding => ({
    field,
    value: draft[field],
    saving: saving === field,
    saved: saved === field,
    error: errors[field],
    onChange: (value: string) => save(field, value),
  });
  const text = (field: TextField): TextBinding => ({
    field,
    value: draft[field],
    changed: draft[field].trim() !== inConfig(settings, field),
    saving: saving === field,
    saved: saved === field,
    error: errors[field],
    onInput: (value: string) => edit({ ...draft, [field]: value }),
    onSave: () => void save(field, draft[field]),
  });

  return (
    <>
      <section class="section" aria-labelledby="prefs-title">
        <h2 id="prefs-title">Preferences</h2>
        {settings.configError ? (
          <ErrorNote
            message={`config.yaml has a problem, so these are the settings in force: ${settings.configError}`}
          />
        ) : null}
        <SelectSetting
          {...select('proactivity')}
          label="Proactivity"
          hint="How readily Wren works on goals and speaks up on its own."
        >
          <option value="off">Off — only what you schedule</option>
          <option value="low">Low</option>
          <option value="default">Default</option>
          <option value="high">High — checks in often</option>
        </SelectSetting>
        <TextSetting
          {...text('quietHours')}
          label="Quiet hours"
          placeholder="22:30-07:00"
          hint="HH:MM-HH:MM. Wren holds its own check-ins until they end (your reminders still ring). Empty: none."
        />
        <SelectSetting
          {...select('gateMode')}
          label="Approval mode"
          hint="When Wren must ask before it runs a tool. In every mode, calls with a danger signature, calls that could send private or untrusted data out, and your own rules still ask."
        >
          <option value="ask">Ask — for sensitive and dangerous calls</option>
          <option value="strict">Strict — ask from moderate calls up</option>
          <option value="auto">Auto — asks only for danger signatures, taint and rules</option>
        </SelectSetting>
        <TextSetting
          {...text('timezone')}
          label="Time zone"
          placeholder="Europe/Berlin"
          hint="An IANA zone name; reminders and quiet hours are read in it. Empty: the system’s."
        />
      </section>
      <BriefingSection
        dayNames={settings.briefingDayNames}
        at={text('briefingAt')}
        days={select('briefingDays')}
        weather={text('briefingWeather')}
      />
    </>
  );
}
