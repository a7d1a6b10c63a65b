import { useEffect, useRef, useState } from 'preact/hooks';
import { readMemoryFile, saveMemoryFile } from '../../api';
import { ErrorNote, Loading } from '../../components/common';
import { errorText } from '../../state';
import type { MemoryFileConflict } from '../../types';
import { authorLabel } from './versions-panel';

const DESCRIPTIONS: Record<string, string> = {
  'SOUL.md': 'Who Wren is: its voice and values.',
  'USER.md': 'What Wren knows about you.',
  'AGENTS.md': 'How Wren works: standing instructions.',
  'MEMORY.md': 'Long-term notes Wren keeps from conversations.',
};

/** Whether the open editor has unsaved text (module level: the nav-away guard reads it). */
let dirtyFile: string | null = null;

/** The file with unsaved changes in the editor, if any (for the page's nav-away guard). */
export const unsavedFile = (): string | null => dirtyFile;

window.addEventListener('beforeunload', (event) => {
  if (dirtyFile) event.preventDefault();
});

/** The file's name and purpose, whether it is saved, and the Save button. */
function EditorHead({
  name,
  dirty,
  savedAt,
  busy,
  loaded,
  onSave,
}: {
  name: string;
  dirty: boolean;
  savedAt: number | null;
  busy: boolean;
  loaded: boolean;
  onSave: () => void;
}) {
  return (
    <div class="editor-head">
      <h2 id="editor-title">
        {name}
        {dirty ? (
          <span class="dirty-dot" title="Unsaved changes" aria-hidden="true">
            •
          </span>
        ) : null}
      </h2>
      <span class="muted">{DESCRIPTIONS[name]}</span>
      <span class="spacer" />
      {/* Only the outcome of a save is announced; "Unsaved changes" is shown, not read out on every edit. */}
      {dirty ? <span class="editor-state">Unsaved changes</span> : null}
      <span class="editor-state" role="status">
        {!dirty && savedAt ? 'Saved' : ''}
      </span>
      <button
        type="button"
        class={`btn ${dirty ? 'primary' : ''}`}
        disabled={!loaded || busy}
        onClick={onSave}
        title="Save (Ctrl+S)"
      >
        {busy ? 'Saving…' : 'Save'}
      </button>
    </div>
  );
}

/**
 * The file as last read or saved (`saved`, null while loading), its ETag (what a save must still find there)
 * and the text being edited.
 */
function useMemoryFileText(name: string) {
  const [saved, setSaved] = useState<string | null>(null);
  const [etag, setEtag] = useState<string | undefined>();
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [savedAt, setSavedAt] = useState<number | null>(null);

  useEffect(() => {
    let stale = false;
    setSaved(null);
    setError(null);
    setSavedAt(null);
    readMemoryFile(name).then(
      (file) => {
        if (stale) return;
        setSaved(file.content);
        setEtag(file.etag);
        setText(file.content);
      },
      (failure) => !stale && setError(errorText(failure)),
    );
    return () => {
      stale = true;
    };
  }, [name]);

  return { saved, setSaved, etag, setEtag, text, setText, error, setError, savedAt, setSavedAt };
}

/**
 * What a refused save shows: the file changed while the owner edited it (by whom). "Load the new version"
 * puts the file's new text in the editor; "Keep mine" saves the owner's text over it, knowingly (the
 * conflict's ETag). Either way the other text stays in the file's history.
 */
function ConflictNote({
  conflict,
  busy,
  onLoad,
  onKeep,
}: {
  conflict: MemoryFileConflict;
  busy: boolean;
  onLoad: () => void;
  onKeep: () => void;
}) {
  const by = conflict.changedBy ? ` (by ${authorLabel(conflict.changedBy.author)})` : '';
  return (
    <div class="error-note conflict-note" role="alert">
      <span>
        {conflict.name} changed while you edited it{by}. Your text is still in the editor; nothing was saved.
      </span>
      <button type="button" class="btn small" disabled={busy} onClick={onLoad}>
        Load the new version
      </button>
      <button type="button" class="btn small" disabled={busy} onClick={onKeep}>
        Keep mine
      </button>
    </div>
  );
}

/**
 * A plain monospace editor: Save (or Ctrl/Cmd+S) writes the whole file, only over the text it loaded
 * (If-Match); a change made meanwhile (a consolidation, the owner's other tab) is shown, never overwritten.
 */
export function FileEditor({ name, onSaved }: { name: string; onSaved: () => void }) {
  const file = useMemoryFileText(name);
  const { saved, setSaved, etag, setEtag, text, setText, error, setError, savedAt, setSavedAt } = file;
  const [busy, setBusy] = useState(false);
  const [conflict, setConflict] = useState<MemoryFileConflict | null>(null);
  const area = useRef<HTMLTextAreaElement>(null);
  const dirty = saved !== null && text !== saved;

  useEffect(() => {
    dirtyFile = dirty ? name : null;
    return () => {
      dirtyFile = null;
    };
  }, [dirty, name]);

  // Saving an unchanged file is allowed (it rewrites the same text): the button never looks stuck.
  const save = async (over = etag) => {
    if (saved === null || busy) return;
    setBusy(true);
    setError(null);
    try {
      const answer = await saveMemoryFile(name, text, over);
      if (!answer.ok) {
        setConflict(answer.conflict);
        return;
      }
      setConflict(null);
      setSaved(text);
      setEtag(answer.value.etag);
      setSavedAt(Date.now());
      onSaved();
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };

  const loadNew = () => {
    if (!conflict) return;
    setSaved(conflict.content);
    setText(conflict.content);
    setEtag(conflict.etag);
    setConflict(null);
    onSaved();
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 's') {
      event.preventDefault();
      void save();
    }
  };

  const id = 'memory-editor';
  return (
    <section class="editor" aria-labelledby="editor-title">
      <EditorHead
        name={name}
        dirty={dirty}
        savedAt={savedAt}
        busy={busy}
        loaded={saved !== null}
        onSave={() => void save()}
      />
      <ErrorNote message={error} />
      {conflict ? (
        <ConflictNote
          conflict={conflict}
          busy={busy}
          onLoad={loadNew}
          onKeep={() => void save(conflict.etag)}
        />
      ) : null}
      {saved === null && !error ? <Loading /> : null}
      {saved !== null ? (
        <>
          <label for={id} class="visually-hidden">
            Contents of {name}
          </label>
          <textarea
            id={id}
            ref={area}
            class="code-editor"
            spellcheck={false}
            value={text}
            onInput={(event) => setText(event.currentTarget.value)}
            onKeyDown={onKeyDown}
          />
        </>
      ) : null}
    </section>
  );
}
