import { useEffect, useState } from 'preact/hooks';
import { createMemo, deleteMemo, listMemos, updateMemo } from '../api';
import { CodeText } from '../components/code-text';
import { Badge, Empty, ErrorNote, Loading, PageHeader, Time } from '../components/common';
import { Icon } from '../components/icons';
import { liveEpoch } from '../live';
import { errorText, toast } from '../state';
import type { Memo } from '../types';

/** `a, b c` → ['a', 'b', 'c'] without `#`. */
function parseTags(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((tag) => tag.replace(/^#/, '').trim())
    .filter(Boolean);
}

function NewMemo({ onAdded }: { onAdded: () => void }) {
  const [text, setText] = useState('');
  const [tags, setTags] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!text.trim()) return;
    setBusy(true);
    setError(null);
    try {
      await createMemo(text.trim(), parseTags(tags));
      setText('');
      setTags('');
      onAdded();
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card form-card" onSubmit={submit} aria-labelledby="new-memo-title">
      <h2 id="new-memo-title">New memo</h2>
      <div class="field">
        <label for="memo-text" class="field-label">
          Memo
        </label>
        <textarea
          id="memo-text"
          rows={3}
          value={text}
          onInput={(event) => setText(event.currentTarget.value)}
        />
      </div>
      <div class="field">
        <label for="memo-tags" class="field-label">
          Tags (optional)
        </label>
        <input
          id="memo-tags"
          value={tags}
          placeholder="ideas, travel"
          aria-describedby="memo-tags-hint"
          onInput={(event) => setTags(event.currentTarget.value)}
        />
        <p id="memo-tags-hint" class="hint">
          Tags become #words in the memo’s text, so search finds them.
        </p>
      </div>
      {error ? (
        <p class="field-error" role="alert">
          <CodeText text={error} />
        </p>
      ) : null}
      <div class="form-actions">
        <button type="submit" class="btn primary" disabled={busy || !text.trim()}>
          Save memo
        </button>
      </div>
    </form>
  );
}

function MemoEditForm({
  memo,
  label,
  text,
  error,
  onInput,
  onSubmit,
  onDiscard,
}: {
  memo: Memo;
  label: string;
  text: string;
  error: string | null;
  onInput: (text: string) => void;
  onSubmit: (event: Event) => void;
  onDiscard: () => void;
}) {
  return (
    <form class="row-form" onSubmit={onSubmit} aria-label={`Edit memo ${label}`}>
      <label for={`memo-${memo.id}`} class="field-label">
        Memo
      </label>
      <textarea
        id={`memo-${memo.id}`}
        rows={4}
        value={text}
        onInput={(event) => onInput(event.currentTarget.value)}
      />
      {error ? (
        <p class="field-error" role="alert">
          <CodeText text={error} />
        </p>
      ) : null}
      <div class="form-actions">
        <button type="button" class="btn ghost" onClick={onDiscard}>
          Discard
        </button>
        <button type="submit" class="btn primary" disabled={!text.trim()}>
          Save
        </button>
      </div>
    </form>
  );
}

function MemoRow({ memo, onChanged }: { memo: Memo; onChanged: () => void }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(memo.text);
  const [error, setError] = useState<string | null>(null);

  const save = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      await updateMemo(memo.id, { text });
      setEditing(false);
      onChanged();
    } catch (failure) {
      setError(errorText(failure));
    }
  };

  const remove = async () => {
    if (!confirm('Delete this memo?')) return;
    try {
      await deleteMemo(memo.id);
      onChanged();
    } catch (failure) {
      toast(errorText(failure), 'error');
    }
  };

  const label = memo.text.slice(0, 40);
  if (editing) {
    return (
      <li class="row editing">
        <MemoEditForm
          memo={memo}
          label={label}
          text={text}
          error={error}
          onInput={setText}
          onSubmit={save}
          onDiscard={() => setEditing(false)}
        />
      </li>
    );
  }
  return (
    <li class="row memo">
      <div class="row-main">
        <p class="memo-text">{memo.text}</p>
        <div class="row-meta">
          {memo.tags?.map((tag) => (
            <Badge key={tag} tone="info">
              #{tag}
            </Badge>
          ))}
          <Time at={memo.updatedAt} />
        </div>
      </div>
      <div class="row-actions">
        <button
          type="button"
          class="btn small"
          aria-label={`Edit memo ${label}`}
          onClick={() => setEditing(true)}
        >
          Edit
        </button>
        <button
          type="button"
          class="btn small danger-outline"
          aria-label={`Delete memo ${label}`}
          onClick={remove}
        >
          Delete
        </button>
      </div>
    </li>
  );
}

export function MemosPage() {
  const [query, setQuery] = useState('');
  const [applied, setApplied] = useState('');
  const [memos, setMemos] = useState<Memo[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = () =>
    listMemos(applied).then(
      (list) => {
        setMemos(list);
        setError(null);
      },
      (failure) => setError(errorText(failure)),
    );

  useEffect(() => {
    void load();
  }, [applied, liveEpoch.value]);

  // Search as you type, a moment after the last key.
  useEffect(() => {
    const timer = setTimeout(() => setApplied(query.trim()), 250);
    return () => clearTimeout(timer);
  }, [query]);

  return (
    <div class="page">
      <PageHeader title="Memos" />
      <NewMemo onAdded={load} />
      <section class="section" aria-labelledby="memo-list-title">
        <div class="section-head">
          <h2 id="memo-list-title">{applied ? `Matching “${applied}”` : 'Recent memos'}</h2>
          <label class="search">
            <Icon name="search" size={16} />
            <span class="visually-hidden">Search memos</span>
            <input
              type="search"
              value={query}
              placeholder="Search memos"
              onInput={(event) => setQuery(event.currentTarget.value)}
            />
          </label>
        </div>
        <ErrorNote message={error} onRetry={load} />
        {memos === null && !error ? <Loading /> : null}
        {memos?.length === 0 ? (
          <Empty title={applied ? 'No memo matches' : 'No memos yet'}>
            {applied ? 'Try other words.' : 'Jot something down above, or tell Wren “note that …”.'}
          </Empty>
        ) : null}
        {memos?.length ? (
          <ul class="rows">
            {memos.map((memo) => (
              <MemoRow key={`${memo.id}-${memo.updatedAt}`} memo={memo} onChanged={load} />
            ))}
          </ul>
        ) : null}
      </section>
    </div>
  );
}
