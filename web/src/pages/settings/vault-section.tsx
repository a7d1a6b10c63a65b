import { useEffect, useState } from 'preact/hooks';
import { listVault, removeVaultSecret, type VaultBindings, type VaultSecret } from '../../api';
import { Empty, ErrorNote, Loading } from '../../components/common';
import { liveEpoch } from '../../live';
import { errorText, toast } from '../../state';
import { VaultForm } from './vault-form';

function boundTo(bindings: VaultBindings): string {
  const parts = [
    bindings.hosts?.length ? `hosts ${bindings.hosts.join(', ')}` : '',
    bindings.programs?.length ? `programs ${bindings.programs.join(', ')}` : '',
    bindings.mcp?.length ? `MCP ${bindings.mcp.join(', ')}` : '',
  ].filter(Boolean);
  return parts.join('; ') || 'nowhere: every use asks you';
}

const when = (ms: number | undefined) => (ms === undefined ? 'never' : new Date(ms).toLocaleString());

/**
 * "Vault": the secrets tools use as `{{vault:NAME}}` (`GET /api/vault`): names, where each may go and when it
 * was last used, never a value. Add or replace one with a password field; remove one after a confirmation.
 */
export function VaultSection() {
  const [secrets, setSecrets] = useState<VaultSecret[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** The form shown: `''` to add one, a name to replace it, null for none. */
  const [editing, setEditing] = useState<string | null>(null);
  const load = () =>
    listVault().then(
      (list) => {
        setSecrets(list);
        setError(null);
      },
      (failure) => setError(errorText(failure)),
    );
  useEffect(() => {
    void load();
  }, [liveEpoch.value]);

  const remove = async (name: string) => {
    if (!confirm(`Remove ${name} from the vault? Calls that use {{vault:${name}}} will be refused.`)) return;
    try {
      await removeVaultSecret(name);
      toast(`${name} removed.`);
      await load();
    } catch (failure) {
      toast(errorText(failure), 'error');
    }
  };
  const saved = () => {
    setEditing(null);
    void load();
  };

  return (
    <section class="section" aria-labelledby="vault-title">
      <h2 id="vault-title">Vault</h2>
      <p class="hint">
        Secrets Wren uses without the model seeing them: tools take <code>{'{{vault:NAME}}'}</code> in exec
        env, web_fetch headers and MCP arguments. A use outside where a secret may go asks you first.
      </p>
      <ErrorNote message={error} onRetry={load} />
      {secrets === null && !error ? <Loading /> : null}
      {secrets?.length === 0 && editing === null ? (
        <Empty title="No secrets">
          Add one here or with <code>wren vault set NAME</code>.
        </Empty>
      ) : null}
      {secrets?.length ? (
        <ul class="rows">
          {secrets.map((secret) => (
            <li class="row" key={secret.name}>
              <div class="row-main">
                <div class="row-title">
                  <code>{secret.name}</code>
                </div>
                <div class="row-meta">
                  <span>bound to {boundTo(secret.bindings)}</span>
                  <span>last used {when(secret.usedAt)}</span>
                </div>
                {editing === secret.name ? (
                  <VaultForm existing={secret} onSaved={saved} onCancel={() => setEditing(null)} />
                ) : null}
              </div>
              <button
                type="button"
                class="btn small"
                aria-label={`Replace ${secret.name}`}
                onClick={() => setEditing(secret.name)}
              >
                Replace
              </button>
              <button
                type="button"
                class="btn small ghost"
                aria-label={`Remove ${secret.name}`}
                onClick={() => remove(secret.name)}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {editing === '' ? (
        <VaultForm onSaved={saved} onCancel={() => setEditing(null)} />
      ) : (
        <div class="setting">
          <button type="button" class="btn small" onClick={() => setEditing('')}>
            Add a secret
          </button>
        </div>
      )}
    </section>
  );
}
