import { useEffect, useState } from 'preact/hooks';
import { ApiError, noteUnauthorized, send } from '../../api';
import { ErrorNote, Time } from '../../components/common';
import { liveEpoch } from '../../live';
import { errorText } from '../../state';
import type { MemoryProposal, MemoryProposalDecided, MemoryProposalList } from '../../types';
import { unsavedFile } from './file-editor';

/** A JSON call to the proposal routes; a refusal becomes an ApiError with the server's message. */
async function call<T>(method: 'GET' | 'POST', path: string): Promise<T> {
  const response = await send(method, path, { headers: { accept: 'application/json' } });
  const body = (await response.json().catch(() => undefined)) as
    | (T & { error?: { code?: string; message?: string } })
    | undefined;
  if (!response.ok) {
    noteUnauthorized(response.status);
    throw new ApiError(
      response.status,
      body?.error?.code ?? 'http_error',
      body?.error?.message ?? `The gateway answered ${response.status}`,
    );
  }
  return body as T;
}

export const listMemoryProposals = () =>
  call<MemoryProposalList>('GET', '/api/memory/proposals').then((answer) => answer.proposals);
export const decideMemoryProposal = (id: number, decision: 'accept' | 'dismiss') =>
  call<MemoryProposalDecided>('POST', `/api/memory/proposals/${id}/${decision}`);

/**
 * Dream's proposals waiting for the owner (nothing when there are none): each MEMORY.md line it would move,
 * the file it would go to and why, with Accept (moves it) and Dismiss (keeps it; never proposed there again).
 * `onAccepted` is told the files changed, so the page reloads its list and the editor.
 */
export function ProposalsPanel({ onAccepted }: { onAccepted: () => void }) {
  const [proposals, setProposals] = useState<MemoryProposal[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const load = () =>
    listMemoryProposals().then(
      (list) => {
        setProposals(list);
        setError(null);
      },
      (failure) => setError(errorText(failure)),
    );
  useEffect(() => {
    void load();
  }, [liveEpoch.value]);

  const decide = async (proposal: MemoryProposal, decision: 'accept' | 'dismiss') => {
    const dirty = unsavedFile();
    if (
      decision === 'accept' &&
      (dirty === 'MEMORY.md' || dirty === proposal.file) &&
      !confirm(`Accepting changes ${dirty}: discard your unsaved changes to it?`)
    )
      return;
    setBusy(true);
    try {
      await decideMemoryProposal(proposal.id, decision);
      if (decision === 'accept') onAccepted();
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
      await load();
    }
  };

  if (!proposals.length && !error) return null;
  return (
    <section class="section" aria-labelledby="memory-proposals-title">
      <h2 id="memory-proposals-title">Proposals</h2>
      <p class="muted section-intro">
        Lines of MEMORY.md that Dream thinks belong in another file. Accept moves the line; Dismiss keeps it
        where it is, and it is not proposed again.
      </p>
      <ErrorNote message={error} onRetry={load} />
      {proposals.map((proposal) => (
        <article key={proposal.id} class="card proposal" aria-label={`Memory proposal ${proposal.id}`}>
          <p>
            <strong>MEMORY.md → {proposal.file}</strong>
          </p>
          <p>{proposal.text}</p>
          {proposal.reason ? <p class="muted">{proposal.reason}</p> : null}
          <div class="form-actions start">
            <button
              type="button"
              class="btn small primary"
              disabled={busy}
              onClick={() => decide(proposal, 'accept')}
            >
              Accept
            </button>
            <button
              type="button"
              class="btn small"
              disabled={busy}
              onClick={() => decide(proposal, 'dismiss')}
            >
              Dismiss
            </button>
            <span class="muted">
              <Time at={proposal.createdAt} />
            </span>
          </div>
        </article>
      ))}
    </section>
  );
}
