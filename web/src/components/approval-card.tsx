import { useState } from 'preact/hooks';
import { answer } from '../approvals';
import { prettyJson, relativeTime } from '../format';
import { errorText } from '../state';
import type { ApprovalChoice, ApprovalRequest } from '../types';
import { Badge, Time, useTicker } from './common';

const LABELS: Record<ApprovalChoice, string> = {
  once: 'Once',
  session: 'This session',
  always: 'Always',
  deny: 'Deny',
};

const ORDER: ApprovalChoice[] = ['once', 'session', 'always', 'deny'];

/** `runs: npm` → tone by its kind: danger lines stand out. */
function factTone(fact: string): string {
  return /^danger\b/i.test(fact) ? 'bad' : /^(reaches|unknown|cannot)/i.test(fact) ? 'warn' : 'neutral';
}

/**
 * One held tool call: what would run (the exact arguments), why the gate asks, the tool's own facts, and
 * only the answers the request offers. The card is an <article> named "Approval: <tool>" so tests and
 * screen readers can tell several apart.
 */
export function ApprovalCard({ request, compact = false }: { request: ApprovalRequest; compact?: boolean }) {
  const [busy, setBusy] = useState<ApprovalChoice | null>(null);
  const [error, setError] = useState<string | null>(null);
  const now = useTicker(15_000);
  const choices = ORDER.filter((choice) => request.choices.includes(choice));
  const reply = async (choice: ApprovalChoice) => {
    setBusy(choice);
    setError(null);
    try {
      await answer(request.id, choice);
    } catch (failure) {
      setError(errorText(failure));
      setBusy(null);
    }
  };
  const titleId = `approval-${request.id}`;
  return (
    <article class={`approval-card${compact ? ' compact' : ''}`} aria-labelledby={titleId}>
      <header class="approval-head">
        <h3 id={titleId}>
          <span class="visually-hidden">Approval: </span>
          <code>{request.tool}</code>
        </h3>
        <Badge>{request.channel}</Badge>
        {request.target ? <span class="muted">target: {request.target}</span> : null}
        <span class="muted approval-expiry">
          <Time at={request.createdAt} relative /> · expires {relativeTime(request.expiresAt, now)}
        </span>
      </header>
      <p class="approval-reason">{request.reason}</p>
      {request.facts?.length ? (
        <ul class="facts" aria-label="What this call does">
          {request.facts.map((fact) => (
            <li key={fact}>
              <Badge tone={factTone(fact)}>{fact}</Badge>
            </li>
          ))}
        </ul>
      ) : null}
      <details class="approval-args" open={!compact}>
        <summary>Arguments</summary>
        <pre>
          <code>{prettyJson(request.args)}</code>
        </pre>
      </details>
      <div class="approval-actions">
        {choices.map((choice) => (
          <button
            key={choice}
            type="button"
            class={`btn ${choice === 'deny' ? 'danger' : choice === 'once' ? 'primary' : ''}`}
            disabled={busy !== null}
            aria-busy={busy === choice}
            onClick={() => reply(choice)}
          >
            {LABELS[choice]}
          </button>
        ))}
      </div>
      {error ? (
        <p class="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </article>
  );
}
