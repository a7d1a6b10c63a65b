import { useState } from 'preact/hooks';
import { putVaultSecret, type VaultBindings, type VaultSecret } from '../../api';
import { errorText, toast } from '../../state';

/** `a, b  c` → `['a', 'b', 'c']`. */
const words = (text: string) => text.split(/[\s,]+/).filter(Boolean);

/**
 * Adds a vault secret or replaces one (`existing`): the name, the value in a password field (sent once with
 * `PUT /api/vault/NAME`, cleared after, never shown back), and where it may go. The route's 400 is shown
 * under the form.
 */
export function VaultForm({
  existing,
  onSaved,
  onCancel,
}: {
  existing?: VaultSecret;
  onSaved: () => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState(existing?.name ?? '');
  const [value, setValue] = useState('');
  const [hosts, setHosts] = useState(existing?.bindings.hosts?.join(', ') ?? '');
  const [programs, setPrograms] = useState(existing?.bindings.programs?.join(', ') ?? '');
  const [mcp, setMcp] = useState(existing?.bindings.mcp?.join(', ') ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const bindings: VaultBindings = { hosts: words(hosts), programs: words(programs), mcp: words(mcp) };
    try {
      const saved = await putVaultSecret(name.trim(), value, bindings);
      setValue('');
      toast(`${saved.name} saved.`);
      onSaved();
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      class="link-form"
      aria-label={existing ? `Replace ${existing.name}` : 'Add a secret'}
      onSubmit={submit}
    >
      <label class="field">
        <span class="field-label">Name</span>
        <input
          value={name}
          required
          readOnly={existing !== undefined}
          placeholder="GITHUB_TOKEN"
          autoComplete="off"
          spellcheck={false}
          onInput={(event) => setName(event.currentTarget.value)}
        />
      </label>
      <label class="field">
        <span class="field-label">Value</span>
        <input
          type="password"
          value={value}
          required
          autoComplete="new-password"
          onInput={(event) => setValue(event.currentTarget.value)}
        />
      </label>
      <label class="field">
        <span class="field-label">Hosts it may be sent to</span>
        <input
          value={hosts}
          placeholder="api.github.com, *.example.com"
          onInput={(event) => setHosts(event.currentTarget.value)}
        />
      </label>
      <label class="field">
        <span class="field-label">Programs exec may pass it to</span>
        <input
          value={programs}
          placeholder="curl, gh"
          onInput={(event) => setPrograms(event.currentTarget.value)}
        />
      </label>
      <label class="field">
        <span class="field-label">MCP servers</span>
        <input value={mcp} onInput={(event) => setMcp(event.currentTarget.value)} />
      </label>
      {error ? (
        <p class="field-error" role="alert">
          {error}
        </p>
      ) : null}
      <div class="link-form-actions">
        <button type="submit" class="btn small primary" disabled={busy} aria-busy={busy ? 'true' : undefined}>
          {existing ? 'Replace' : 'Save'}
        </button>
        <button type="button" class="btn small ghost" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
