import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { copyText } from '../clipboard';
import { isoOf, longTime, relativeTime, shortTime } from '../format';
import { CodeText } from './code-text';
import { Icon } from './icons';

/** Small building blocks shared by the pages. */

export function PageHeader({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <header class="page-header">
      <h1>{title}</h1>
      {children ? <div class="page-actions">{children}</div> : null}
    </header>
  );
}

export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <p class="empty-title">{title}</p>
      {children ? <p class="empty-text">{children}</p> : null}
    </div>
  );
}

/** An error the page could not get past (role alert: read out when it appears). */
export function ErrorNote({ message, onRetry }: { message: string | null; onRetry?: () => void }) {
  if (!message) return null;
  return (
    <div class="error-note" role="alert">
      <span>
        <CodeText text={message} />
      </span>
      {onRetry ? (
        <button type="button" class="btn small" onClick={onRetry}>
          Retry
        </button>
      ) : null}
    </div>
  );
}

export function Spinner({ label = 'Loading' }: { label?: string }) {
  return (
    <span class="spinner" role="status">
      <span class="visually-hidden">{label}</span>
    </span>
  );
}

export function Loading() {
  return (
    <div class="loading-row">
      <Spinner />
    </div>
  );
}

/** A timestamp: short text, the full date as a tooltip, machine-readable for tools. */
export function Time({ at, relative = false }: { at: number; relative?: boolean }) {
  return (
    <time dateTime={isoOf(at)} title={longTime(at)}>
      {relative ? relativeTime(at) : shortTime(at)}
    </time>
  );
}

/** Copies `text`; its label turns to "Copied" for a moment. */
export function CopyButton({
  text,
  label = 'Copy message',
}: {
  text: string | (() => string);
  label?: string;
}) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 1500);
    return () => clearTimeout(timer);
  }, [copied]);
  return (
    <button
      type="button"
      class="icon-btn"
      aria-label={copied ? 'Copied' : label}
      title={copied ? 'Copied' : label}
      onClick={async () => setCopied(await copyText(typeof text === 'function' ? text() : text))}
    >
      <Icon name={copied ? 'check' : 'copy'} size={16} />
    </button>
  );
}

export function Badge({ children, tone = 'neutral' }: { children: ComponentChildren; tone?: string }) {
  return <span class={`badge tone-${tone}`}>{children}</span>;
}

/** Tone of a state word (connected, ready, failed …) for its badge. */
export function stateTone(state: string | undefined): string {
  switch (state) {
    case 'connected':
    case 'ready':
    case 'ok':
    case 'active':
    case 'done':
      return 'good';
    case 'reconnecting':
    case 'connecting':
    case 'starting':
    case 'cooling':
    case 'held':
    case 'paused':
    case 'in_progress':
    case 'linking':
      return 'warn';
    case 'failed':
    case 'invalid':
    case 'error':
    case 'blocked':
    case 'logged-out':
      return 'bad';
    default:
      return 'neutral';
  }
}

/** Re-renders every `ms` (relative times, countdowns). */
export function useTicker(ms: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}
