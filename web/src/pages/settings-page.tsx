import { useEffect, useState } from 'preact/hooks';
import {
  getSettings,
  getStatus,
  listMcp,
  listModels,
  setMcpEnabled,
  testModel,
  updateSettings,
} from '../api';
import { Badge, Empty, ErrorNote, Loading, PageHeader, stateTone, Time } from '../components/common';
import { liveEpoch } from '../live';
import { currentSubscription, disablePush, enablePush, pushUnavailable } from '../push';
import { errorText, toast } from '../state';
import { setTheme, type ThemeChoice, themeChoice } from '../theme';
import type { GateMode, McpServer, ModelInfo, ModelTest, Proactivity, Settings, Status } from '../types';

function Appearance() {
  return (
    <section class="section" aria-labelledby="appearance-title">
      <h2 id="appearance-title">Appearance</h2>
      <div class="setting">
        <label for="theme-choice" class="field-label">
          Theme
        </label>
        <select
          id="theme-choice"
          value={themeChoice.value}
          onChange={(event) => setTheme(event.currentTarget.value as ThemeChoice)}
        >
          <option value="system">Follow the system</option>
          <option value="light">Light</option>
          <option value="dark">Dark</option>
        </select>
      </div>
    </section>
  );
}

/** "Notifications on this device": this browser's web push subscription. */
function Notifications() {
  const unavailable = pushUnavailable();
  const [on, setOn] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (unavailable) return;
    currentSubscription().then(
      (subscription) => setOn(subscription !== null && Notification.permission === 'granted'),
      () => setOn(false),
    );
  }, []);

  const change = async (wanted: boolean) => {
    setBusy(true);
    setError(null);
    try {
      if (wanted) await enablePush();
      else await disablePush();
      setOn(wanted);
      toast(wanted ? 'Notifications are on for this device.' : 'Notifications are off for this device.');
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="section" aria-labelledby="notifications-title">
      <h2 id="notifications-title">Notifications</h2>
      <div class="setting">
        <label class="switch">
          <input
            type="checkbox"
            role="switch"
            aria-checked={on}
            checked={on}
            disabled={busy || unavailable !== null}
            aria-describedby="push-hint"
            onChange={(event) => change(event.currentTarget.checked)}
          />
          <span class="switch-track" aria-hidden="true" />
          Notifications on this device
        </label>
      </div>
      <p id="push-hint" class="hint">
        {unavailable ??
          'Reminders and messages Wren sends on its own arrive here even when the app is closed. Web push needs https, or localhost on this computer. Wren sends them when proactive.push is on in config.yaml.'}
      </p>
      {error ? (
        <p class="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}

type Field = keyof Omit<Settings, 'configError'>;

/**
 * The everyday settings (config.yaml). Each field saves on its own, so the server's 400 message (the
 * validator reads the whole file) is shown next to the field that caused it.
 */
function Preferences() {
  const [settings, setSettings] = useState<Settings | null>(null);
  const [draft, setDraft] = useState<Record<Field, string>>({
    proactivity: '',
    quietHours: '',
    gateMode: '',
    timezone: '',
  });
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [saving, setSaving] = useState<Field | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);

  const adopt = (value: Settings) => {
    setSettings(value);
    setDraft({
      proactivity: value.proactivity,
      quietHours: value.quietHours ?? '',
      gateMode: value.gateMode,
      timezone: value.timezone ?? '',
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
    setErrors((current) => ({ ...current, [field]: undefined }));
    const value = raw.trim();
    try {
      const next = await updateSettings({
        [field]: field === 'quietHours' || field === 'timezone' ? value || null : value,
      } as Partial<Settings>);
      adopt(next);
    } catch (failure) {
      setErrors((current) => ({ ...current, [field]: errorText(failure) }));
    } finally {
      setSaving(null);
    }
  };

  if (!settings) {
    return (
      <section class="section" aria-labelledby="prefs-title">
        <h2 id="prefs-title">Preferences</h2>
        <ErrorNote message={loadError} onRetry={load} />
        {!loadError ? <Loading /> : null}
      </section>
    );
  }

  const fieldError = (field: Field) =>
    errors[field] ? (
      <p id={`${field}-error`} class="field-error" role="alert">
        {errors[field]}
      </p>
    ) : null;

  const textField = (field: 'quietHours' | 'timezone', label: string, placeholder: string, hint: string) => {
    const current = field === 'quietHours' ? (settings.quietHours ?? '') : settings.timezone;
    const changed = draft[field].trim() !== current;
    return (
      <form
        class="setting"
        onSubmit={(event) => {
          event.preventDefault();
          void save(field, draft[field]);
        }}
      >
        <label for={`setting-${field}`} class="field-label">
          {label}
        </label>
        <div class="inline-form">
          <input
            id={`setting-${field}`}
            value={draft[field]}
            placeholder={placeholder}
            aria-invalid={errors[field] ? true : undefined}
            aria-describedby={`${field}-hint${errors[field] ? ` ${field}-error` : ''}`}
            onInput={(event) => setDraft({ ...draft, [field]: event.currentTarget.value })}
          />
          <button
            type="submit"
            class="btn"
            disabled={!changed || saving === field}
            aria-label={`Save ${label.toLowerCase()}`}
          >
            Save
          </button>
        </div>
        <p id={`${field}-hint`} class="hint">
          {hint}
        </p>
        {fieldError(field)}
      </form>
    );
  };

  return (
    <section class="section" aria-labelledby="prefs-title">
      <h2 id="prefs-title">Preferences</h2>
      {settings.configError ? (
        <ErrorNote
          message={`config.yaml has a problem, so these are the settings in force: ${settings.configError}`}
        />
      ) : null}
      <div class="setting">
        <label for="setting-proactivity" class="field-label">
          Proactivity
        </label>
        <select
          id="setting-proactivity"
          value={draft.proactivity}
          disabled={saving === 'proactivity'}
          aria-describedby="proactivity-hint"
          onChange={(event) => save('proactivity', event.currentTarget.value as Proactivity)}
        >
          <option value="off">Off — only what you schedule</option>
          <option value="low">Low</option>
          <option value="default">Default</option>
          <option value="high">High — checks in often</option>
        </select>
        <p id="proactivity-hint" class="hint">
          How readily Wren works on goals and speaks up on its own.
        </p>
        {fieldError('proactivity')}
      </div>
      {textField(
        'quietHours',
        'Quiet hours',
        '22:30-07:00',
        'HH:MM-HH:MM. Wren holds its own check-ins until they end (your reminders still ring). Empty: none.',
      )}
      <div class="setting">
        <label for="setting-gateMode" class="field-label">
          Approval mode
        </label>
        <select
          id="setting-gateMode"
          value={draft.gateMode}
          disabled={saving === 'gateMode'}
          aria-describedby="gateMode-hint"
          onChange={(event) => save('gateMode', event.currentTarget.value as GateMode)}
        >
          <option value="ask">Ask — for sensitive and dangerous calls</option>
          <option value="strict">Strict — ask from moderate calls up</option>
          <option value="auto">Auto — never ask</option>
        </select>
        <p id="gateMode-hint" class="hint">
          When Wren must ask before it runs a tool.
        </p>
        {fieldError('gateMode')}
      </div>
      {textField(
        'timezone',
        'Time zone',
        'Europe/Berlin',
        'An IANA zone name; reminders and quiet hours are read in it. Empty: the system’s.',
      )}
    </section>
  );
}

function Models() {
  const [models, setModels] = useState<ModelInfo[] | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tests, setTests] = useState<Record<string, ModelTest | 'running'>>({});
  const load = () =>
    listModels().then(
      (answer) => {
        setModels(answer.models);
        setNote(answer.note ?? null);
        setError(null);
      },
      (failure) => setError(errorText(failure)),
    );
  useEffect(() => {
    void load();
  }, [liveEpoch.value]);

  const test = async (name: string) => {
    setTests((current) => ({ ...current, [name]: 'running' }));
    try {
      const result = await testModel(name);
      setTests((current) => ({ ...current, [name]: result }));
    } catch (failure) {
      setTests((current) => ({ ...current, [name]: { ok: false, error: errorText(failure) } }));
    }
    void load();
  };

  return (
    <section class="section" aria-labelledby="models-title">
      <h2 id="models-title">Models</h2>
      <ErrorNote message={error} onRetry={load} />
      {note ? <p class="hint">{note}</p> : null}
      {models === null && !error ? <Loading /> : null}
      {models?.length === 0 ? (
        <Empty title="No models configured">Run the setup, or add one to config.yaml.</Empty>
      ) : null}
      {models?.length ? (
        <ul class="rows">
          {models.map((model) => {
            const result = tests[model.name];
            return (
              <li key={model.name} class="row">
                <div class="row-main">
                  <div class="row-title">
                    {model.name} <span class="muted">· {model.model}</span>
                  </div>
                  <div class="row-meta">
                    {model.state ? (
                      <Badge tone={stateTone(model.state === 'failing' ? 'failed' : model.state)}>
                        {model.state}
                      </Badge>
                    ) : null}
                    {model.provider ? <span>{model.provider}</span> : null}
                    {model.tags.map((tag) => (
                      <Badge key={tag}>{tag}</Badge>
                    ))}
                    {model.cooldownUntil && model.cooldownUntil > Date.now() ? (
                      <span>
                        cooling until <Time at={model.cooldownUntil} />
                      </span>
                    ) : null}
                    {model.latencyMs !== undefined ? <span>{model.latencyMs} ms</span> : null}
                    {model.baseUrl ? <span class="muted ellipsis">{model.baseUrl}</span> : null}
                  </div>
                  {model.lastError ? <p class="row-notes error-text">{model.lastError}</p> : null}
                  {result && result !== 'running' ? (
                    <p class={result.ok ? 'field-ok' : 'field-error'} role="status">
                      {result.ok
                        ? `Answered in ${result.latencyMs ?? '?'} ms.`
                        : `Test failed: ${result.error ?? 'no answer'}`}
                    </p>
                  ) : null}
                </div>
                <button
                  type="button"
                  class="btn small"
                  aria-label={`Test model ${model.name}`}
                  disabled={result === 'running'}
                  onClick={() => test(model.name)}
                >
                  {result === 'running' ? 'Testing…' : 'Test'}
                </button>
              </li>
            );
          })}
        </ul>
      ) : null}
    </section>
  );
}

function Channels({ status }: { status: Status | null }) {
  const channels = status?.channels ?? [];
  return (
    <section class="section" aria-labelledby="channels-title">
      <h2 id="channels-title">Channels</h2>
      {status && channels.length === 0 ? (
        <Empty title="No chat channels running">Add Telegram, Slack … in config.yaml.</Empty>
      ) : null}
      {channels.length ? (
        <ul class="rows">
          {channels.map((channel) => (
            <li key={channel.name} class="row">
              <div class="row-main">
                <div class="row-title">{channel.name}</div>
                <div class="row-meta">
                  <Badge tone={stateTone(channel.state)}>
                    {channel.state}
                    {channel.detail && channel.state !== 'connected' ? `: ${channel.detail}` : ''}
                  </Badge>
                  <span>
                    since <Time at={channel.since} />
                  </span>
                </div>
              </div>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

function toolName(tool: McpServer['tools'][number]): { name: string; description?: string } {
  return typeof tool === 'string' ? { name: tool } : tool;
}

function Mcp() {
  const [servers, setServers] = useState<McpServer[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const load = () =>
    listMcp().then(
      (answer) => {
        setServers(answer.servers);
        setFileError(answer.fileError ?? null);
        setError(null);
      },
      (failure) => setError(errorText(failure)),
    );
  useEffect(() => {
    void load();
  }, [liveEpoch.value]);

  const toggle = async (server: McpServer) => {
    setBusy(server.name);
    try {
      const answer = await setMcpEnabled(server.name, !server.enabled);
      if (answer.note) toast(answer.note);
      await load();
    } catch (failure) {
      toast(errorText(failure), 'error');
    } finally {
      setBusy(null);
    }
  };

  return (
    <section class="section" aria-labelledby="mcp-title">
      <h2 id="mcp-title">MCP servers</h2>
      <ErrorNote message={error} onRetry={load} />
      <ErrorNote message={fileError} />
      {servers === null && !error ? <Loading /> : null}
      {servers?.length === 0 ? (
        <Empty title="No MCP servers">Add tool servers in mcp.json (`wren mcp`).</Empty>
      ) : null}
      {servers?.length ? (
        <ul class="rows">
          {servers.map((server) => (
            <li key={server.name} class="row">
              <div class="row-main">
                <div class="row-title">{server.name}</div>
                <div class="row-meta">
                  <Badge tone={stateTone(server.state)}>{server.state}</Badge>
                  <span>{server.tools.length} tools</span>
                </div>
                {(server.error ?? server.reason) ? (
                  <p class="row-notes error-text">{server.error ?? server.reason}</p>
                ) : null}
                {server.tools.length ? (
                  <details class="tool-list">
                    <summary>Tools</summary>
                    <ul>
                      {server.tools.map((tool) => {
                        const { name, description } = toolName(tool);
                        return (
                          <li key={name}>
                            <code>{name}</code>
                            {description ? <span class="muted"> — {description}</span> : null}
                          </li>
                        );
                      })}
                    </ul>
                  </details>
                ) : null}
              </div>
              <button
                type="button"
                class="btn small"
                disabled={busy === server.name}
                aria-label={`${server.enabled ? 'Disable' : 'Enable'} ${server.name}`}
                onClick={() => toggle(server)}
              >
                {server.enabled ? 'Disable' : 'Enable'}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

function About({ status }: { status: Status | null }) {
  if (!status) return null;
  const hours = Math.floor(status.uptimeSeconds / 3600);
  const minutes = Math.floor((status.uptimeSeconds % 3600) / 60);
  return (
    <section class="section" aria-labelledby="about-title">
      <h2 id="about-title">About</h2>
      <dl class="facts-list">
        <dt>Version</dt>
        <dd>{status.version}</dd>
        <dt>Running for</dt>
        <dd>
          {hours} h {minutes} min
        </dd>
        {status.turnsInFlight !== undefined ? (
          <>
            <dt>Turns in flight</dt>
            <dd>{status.turnsInFlight}</dd>
          </>
        ) : null}
        {status.memoryMb !== undefined ? (
          <>
            <dt>Memory</dt>
            <dd>{Math.round(status.memoryMb)} MB</dd>
          </>
        ) : null}
      </dl>
    </section>
  );
}

export function SettingsPage() {
  const [status, setStatus] = useState<Status | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    getStatus().then(
      (value) => {
        setStatus(value);
        setError(null);
      },
      (failure) => setError(errorText(failure)),
    );
  useEffect(() => {
    void load();
    // Channel states change (a reconnecting Telegram): refresh while the page is open.
    const timer = setInterval(load, 15_000);
    return () => clearInterval(timer);
  }, [liveEpoch.value]);

  return (
    <div class="page">
      <PageHeader title="Settings" />
      <ErrorNote message={error} onRetry={load} />
      {status?.configError ? <ErrorNote message={`config.yaml: ${status.configError}`} /> : null}
      <Appearance />
      <Notifications />
      <Preferences />
      <Models />
      <Channels status={status} />
      <Mcp />
      <About status={status} />
    </div>
  );
}
