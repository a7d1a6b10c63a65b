import { useEffect, useState } from 'preact/hooks';
import { approvePairing, listGrants, listPairings, rejectPairing, revokeGrant } from '../api';
import { loadApprovals, pendingApprovals } from '../approvals';
import { ApprovalCard } from '../components/approval-card';
import { Badge, Empty, ErrorNote, Loading, PageHeader, Time } from '../components/common';
import { liveEpoch, subscribe } from '../live';
import { errorText, toast } from '../state';
import type { Grant, Pairing } from '../types';

function Grants() {
  const [grants, setGrants] = useState<Grant[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    listGrants().then(
      (list) => {
        setGrants(list);
        setError(null);
      },
      (failure) => setError(errorText(failure)),
    );
  useEffect(() => {
    void load();
    // An "Always" or "This session" answer adds a grant: show it.
    return subscribe('approval-resolved', () => void load());
  }, [liveEpoch.value]);

  const revoke = async (grant: Grant) => {
    try {
      await revokeGrant(grant.id);
      setGrants((list) => list?.filter((item) => item.id !== grant.id) ?? null);
      toast(`Revoked ${grant.tool}${grant.target ? ` (${grant.target})` : ''}.`);
    } catch (failure) {
      toast(errorText(failure), 'error');
    }
  };

  return (
    <section class="section" aria-labelledby="grants-title">
      <h2 id="grants-title">Standing grants</h2>
      <p class="muted section-intro">
        Calls Wren may make without asking, from your “This session” and “Always” answers.
      </p>
      <ErrorNote message={error} onRetry={load} />
      {grants === null && !error ? <Loading /> : null}
      {grants?.length === 0 ? (
        <Empty title="No standing grants">Every sensitive call will ask first.</Empty>
      ) : null}
      {grants?.length ? (
        <ul class="rows">
          {grants.map((grant) => (
            <li key={grant.id} class="row">
              <div class="row-main">
                <div class="row-title">
                  <code>{grant.tool}</code>
                  {grant.target ? <span> · {grant.target}</span> : <span class="muted"> · any call</span>}
                </div>
                <div class="row-meta">
                  <Badge tone={grant.scope === 'always' ? 'warn' : 'neutral'}>{grant.scope}</Badge>
                  {grant.sessionId ? <span>session {grant.sessionId.slice(0, 8)}</span> : null}
                  <span>
                    by {grant.createdBy}, <Time at={grant.createdAt} />
                  </span>
                </div>
              </div>
              <button
                type="button"
                class="btn small danger-outline"
                aria-label={`Revoke ${grant.tool}${grant.target ? ` ${grant.target}` : ''}`}
                onClick={() => revoke(grant)}
              >
                Revoke
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

/** A code someone got on a chat channel, with Approve and Reject. */
function PairingRequest({ pairing, onAnswer }: { pairing: Pairing; onAnswer: (approve: boolean) => void }) {
  return (
    <li class="row">
      <div class="row-main">
        <div class="row-title">
          <code class="pair-code">{pairing.code}</code> {pairing.senderName || pairing.senderId}
        </div>
        <div class="row-meta">
          <Badge>{pairing.channel}</Badge>
          <span>chat {pairing.chatId}</span>
          <span>
            expires <Time at={pairing.expiresAt} relative />
          </span>
        </div>
      </div>
      <div class="row-actions">
        <button
          type="button"
          class="btn small primary"
          aria-label={`Approve pairing ${pairing.code}`}
          onClick={() => onAnswer(true)}
        >
          Approve
        </button>
        <button
          type="button"
          class="btn small"
          aria-label={`Reject pairing ${pairing.code}`}
          onClick={() => onAnswer(false)}
        >
          Reject
        </button>
      </div>
    </li>
  );
}

/** The senders already paired (folded), each with Remove. */
function PairedSenders({
  approved,
  onRemove,
}: {
  approved: Pairing[];
  onRemove: (pairing: Pairing) => void;
}) {
  if (!approved.length) return null;
  return (
    <details class="approved-pairings">
      <summary>Paired senders ({approved.length})</summary>
      <ul class="rows">
        {approved.map((pairing) => (
          <li key={pairing.code} class="row">
            <div class="row-main">
              <div class="row-title">{pairing.senderName || pairing.senderId}</div>
              <div class="row-meta">
                <Badge>{pairing.channel}</Badge>
                <span>chat {pairing.chatId}</span>
              </div>
            </div>
            <button
              type="button"
              class="btn small danger-outline"
              aria-label={`Remove ${pairing.senderName || pairing.senderId}`}
              onClick={() => onRemove(pairing)}
            >
              Remove
            </button>
          </li>
        ))}
      </ul>
    </details>
  );
}

function Pairings() {
  const [pairings, setPairings] = useState<Pairing[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    listPairings().then(
      (list) => {
        setPairings(list);
        setError(null);
      },
      (failure) =>
        // Without chat channels that pair, the route is absent (404): show nothing rather than an error.
        (failure as { status?: number }).status === 404 ? setPairings([]) : setError(errorText(failure)),
    );
  useEffect(() => {
    void load();
  }, [liveEpoch.value]);

  const act = async (pairing: Pairing, approve: boolean) => {
    try {
      if (approve) await approvePairing(pairing.code);
      else await rejectPairing(pairing.code);
      await load();
    } catch (failure) {
      toast(errorText(failure), 'error');
    }
  };

  const pending = pairings?.filter((item) => item.approvedAt === null) ?? [];
  const approved = pairings?.filter((item) => item.approvedAt !== null) ?? [];

  return (
    <section class="section" aria-labelledby="pairings-title">
      <h2 id="pairings-title">Pairing requests</h2>
      <p class="muted section-intro">
        People who messaged Wren on a chat channel and got a pairing code. Approving lets them talk to Wren
        (they can never approve tool calls).
      </p>
      <ErrorNote message={error} onRetry={load} />
      {pairings === null && !error ? <Loading /> : null}
      {pairings !== null && pending.length === 0 ? (
        <Empty title="No pairing requests">Codes expire after an hour.</Empty>
      ) : null}
      {pending.length ? (
        <ul class="rows">
          {pending.map((pairing) => (
            <PairingRequest
              key={pairing.code}
              pairing={pairing}
              onAnswer={(approve) => act(pairing, approve)}
            />
          ))}
        </ul>
      ) : null}
      <PairedSenders approved={approved} onRemove={(pairing) => act(pairing, false)} />
    </section>
  );
}

/** Everything waiting for the owner's word: held tool calls, standing grants, pairing codes. */
export function ApprovalsPage() {
  useEffect(() => {
    void loadApprovals();
  }, [liveEpoch.value]);
  const pending = pendingApprovals.value;
  return (
    <div class="page">
      <PageHeader title="Approvals" />
      <section class="section" aria-labelledby="pending-title">
        {/* Focusable from script: focus lands here when the last answered card leaves (approval-card.tsx). */}
        <h2 id="pending-title" tabIndex={-1}>
          Waiting for you {pending.length ? <Badge tone="warn">{pending.length}</Badge> : null}
        </h2>
        {pending.length === 0 ? (
          <Empty title="Nothing waiting">When Wren wants to run something sensitive, it asks here.</Empty>
        ) : (
          <div class="approval-list">
            {pending.map((request) => (
              <ApprovalCard key={request.id} request={request} />
            ))}
          </div>
        )}
      </section>
      <Grants />
      <Pairings />
    </div>
  );
}
