import { useRef, useState } from 'preact/hooks';
import { answer } from '../approvals';
import { agoTime, isoOf, longTime, prettyJson, relativeTime } from '../format';
import { errorText } from '../state';
import type { ApprovalChoice, ApprovalRequest } from '../types';
import { CodeText } from './code-text';
import { Badge, useTicker } from './common';
import { channelLabel } from './session-list';

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
 * Where focus goes when an answered card leaves the list, in order of preference: the next card's first
 * answer, the previous one's, the list's heading, the chat's message box, the page.
 */
function focusAfter(card: HTMLElement): HTMLElement[] {
  const answerOf = (element: Element | null) =>
    element?.querySelector<HTMLElement>('.approval-actions button');
  return [
    answerOf(card.nextElementSibling),
    answerOf(card.previousElementSibling),
    document.getElementById('pending-title'),
    document.getElementById('composer-input'),
    document.getElementById('main'),
  ].filter((element): element is HTMLElement => element != null);
}

/** Focuses the first of `candidates` still on the page, unless focus already is somewhere. */
function restoreFocus(candidates: HTMLElement[]): void {
  requestAnimationFrame(() => {
    const active = document.activeElement;
    if (active && active !== document.body && active.isConnected) return;
    candidates.find((element) => element.isConnected)?.focus();
  });
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
  const card = useRef<HTMLElement>(null);
  // Answering disables the buttons and then removes the card, which drops keyboard focus on the page:
  // whoever answered with the keyboard keeps their place (the pressed button again when the answer failed).
  const reply = async (choice: ApprovalChoice) => {
    const node = card.current;
    const focused = node?.contains(document.activeElement) ?? false;
    const next = node && focused ? focusAfter(node) : [];
    setBusy(choice);
    setError(null);
    try {
      await answer(request.id, choice);
      restoreFocus(next);
    } catch (failure) {
      setError(errorText(failure));
      setBusy(null);
      const pressed = node?.querySelector<HTMLElement>(`[data-choice="${choice}"]`);
      if (focused && pressed) restoreFocus([pressed]);
    }
  };
  const titleId = `approval-${request.id}`;
  return (
    <article ref={card} class={`approval-card${compact ? ' compact' : ''}`} aria-labelledby={titleId}>
      <header class="approval-head">
        <h3 id={titleId}>
          <span class="visually-hidden">Approval: </span>
          <code>{request.tool}</code>
        </h3>
        <Badge>{channelLabel(request.channel)}</Badge>
        {request.target ? <span class="muted">target: {request.target}</span> : null}
        <span class="muted approval-expiry">
          <time dateTime={isoOf(request.createdAt)} title={longTime(request.createdAt)}>
            asked {agoTime(request.createdAt, now)}
          </time>{' '}
          · <span title={longTime(request.expiresAt)}>expires {relativeTime(request.expiresAt, now)}</span>
        </span>
      </header>
      <p class="approval-reason">
        <CodeText text={request.reason} />
      </p>
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
            data-choice={choice}
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
          <CodeText text={error} />
        </p>
      ) : null}
    </article>
  );
}
