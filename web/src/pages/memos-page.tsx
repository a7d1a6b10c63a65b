import { useEffect, useState } from 'preact/hooks';
import { createMemo, deleteMemo, listMemos, updateMemo } from '../api';
import { Badge, Empty, PageHeader, Time } from '../components/common';
import { EditableRow, EditForm, rowAction } from '../components/editable-row';
import { Field } from '../components/field';
import { FieldError } from '../components/field-error';
import { Icon } from '../components/icons';
import { ListSection } from '../components/list-section';
import { useList } from '../components/use-list';
import { useSubmit } from '../components/use-submit';
import { liveEpoch } from '../live';
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
  const { busy, error, submit } = useSubmit(async () => {
    await createMemo(text.trim(), parseTags(tags));
    setText('');
    setTags('');
    onAdded();
  }, Boolean(text.trim()));
  return (
    <form class="card form-card" onSubmit={submit} aria-labelledby="new-memo-title">
      <h2 id="new-memo-title">New memo</h2>
      <Field id="memo-text" label="Memo">
        <textarea
          id="memo-text"
          rows={3}
          value={text}
          onInput={(event) => setText(event.currentTarget.value)}
        />
      </Field>
      <Field id="memo-tags" label="Tags (optional)">
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
      </Field>
      <FieldError message={error} />
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
    <EditForm
      label={`Edit memo ${label}`}
      onSubmit={onSubmit}
      onDiscard={onDiscard}
      error={error}
      saveDisabled={!text.trim()}
    >
      <label for={`memo-${memo.id}`} class="field-label">
        Memo
      </label>
      <textarea
        id={`memo-${memo.id}`}
        rows={4}
        value={text}
        onInput={(event) => onInput(event.currentTarget.value)}
      />
    </EditForm>
  );
}

function MemoRow({ memo, onChanged }: { memo: Memo; onChanged: () => void }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(memo.text);
  const { error, submit: save } = useSubmit(async () => {
    await updateMemo(memo.id, { text });
    setEditing(false);
    onChanged();
  });

  const remove = async () => {
    if (confirm('Delete this memo?')) await rowAction(() => deleteMemo(memo.id), onChanged);
  };

  const label = memo.text.slice(0, 40);
  return (
    <EditableRow
      class="memo"
      label={`memo ${label}`}
      editing={editing}
      form={
        <MemoEditForm
          memo={memo}
          label={label}
          text={text}
          error={error}
          onInput={setText}
          onSubmit={save}
          onDiscard={() => setEditing(false)}
        />
      }
      onEdit={() => setEditing(true)}
      removeText="Delete"
      onRemove={remove}
    >
      <p class="memo-text">{memo.text}</p>
      <div class="row-meta">
        {memo.tags?.map((tag) => (
          <Badge key={tag} tone="info">
            #{tag}
          </Badge>
        ))}
        <Time at={memo.updatedAt} />
      </div>
    </EditableRow>
  );
}

export function MemosPage() {
  const [query, setQuery] = useState('');
  const [applied, setApplied] = useState('');
  const list = useList(() => listMemos(applied), [applied, liveEpoch.value]);

  // Search as you type, a moment after the last key.
  useEffect(() => {
    const timer = setTimeout(() => setApplied(query.trim()), 250);
    return () => clearTimeout(timer);
  }, [query]);

  return (
    <div class="page">
      <PageHeader title="Memos" />
      <NewMemo onAdded={list.load} />
      <ListSection
        id="memo-list-title"
        title={applied ? `Matching “${applied}”` : 'Recent memos'}
        controls={
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
        }
        items={list.items}
        error={list.error}
        onRetry={list.load}
        empty={
          <Empty title={applied ? 'No memo matches' : 'No memos yet'}>
            {applied ? 'Try other words.' : 'Jot something down above, or tell Wren “note that …”.'}
          </Empty>
        }
        row={(memo: Memo) => (
          <MemoRow key={`${memo.id}-${memo.updatedAt}`} memo={memo} onChanged={list.load} />
        )}
      />
    </div>
  );
}
