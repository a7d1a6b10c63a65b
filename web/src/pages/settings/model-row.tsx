import { Badge, stateTone, Time } from '../../components/common';
import type { ModelInfo, ModelTest } from '../../types';

/** One configured model: its health, tags and cooldown, the last test's outcome and a Test button. */
export function ModelRow({
  model,
  result,
  onTest,
}: {
  model: ModelInfo;
  result: ModelTest | 'running' | undefined;
  onTest: () => void;
}) {
  return (
    <li class="row">
      <div class="row-main">
        <div class="row-title">
          {model.name} <span class="muted">· {model.model}</span>
        </div>
        <div class="row-meta">
          {model.state ? (
            <Badge tone={stateTone(model.state === 'failing' ? 'failed' : model.state)}>{model.state}</Badge>
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
        onClick={onTest}
      >
        {result === 'running' ? 'Testing…' : 'Test'}
      </button>
    </li>
  );
}
