import { useEffect, useRef, useState } from 'preact/hooks';
import { listMemoryFiles, memoryHistory, readMemoryFile, searchMemory, writeMemoryFile } from '../api';
import { Badge, Empty, ErrorNote, Loading, PageHeader, Time } from '../components/common';
import { Icon } from '../components/icons';
import { MarkdownView } from '../components/markdown-view';
import { bytes } from '../format';
import { liveEpoch } from '../live';
import { hrefOf, navigate } from '../router';
import { errorText } from '../state';
import type { MemoryFile, MemoryHistoryEntry, MemorySearchResult } from '../types';

const DESCRIPTIONS: Record<string, string> = {
  'SOUL.md': 'Who Wren is: its voice and values.',
  'USER.md': 'What Wren knows about you.',
  'AGENTS.md': 'How Wren works: standing instructions.',
  'MEMORY.md': 'Long-term notes Wren keeps from conversations.',
};

/** Whether the open editor has unsaved text (module level: the nav-away guard reads it). */
let dirtyFile: string | null = null;

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

/** The file as last read or saved (`saved`, null while loading) and the text being edited. */
function useMemoryFileText(name: string) {
  const [saved, setSaved] = useState<string | null>(null);
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
        setText(file.content);
      },
      (failure) => !stale && setError(errorText(failure)),
    );
    return () => {
      stale = true;
    };
  }, [name]);

  return { saved, setSaved, text, setText, error, setError, savedAt, setSavedAt };
}

/** A plain monospace editor: Save (or Ctrl/Cmd+S) writes the whole file. */
function FileEditor({ name, onSaved }: { name: string; onSaved: () => void }) {
  const { saved, setSaved, text, setText, error, setError, savedAt, setSavedAt } = useMemoryFileText(name);
  const [busy, setBusy] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);
  const dirty = saved !== null && text !== saved;

  useEffect(() => {
    dirtyFile = dirty ? name : null;
    return () => {
      dirtyFile = null;
    };
  }, [dirty, name]);

  // Saving an unchanged file is allowed (it rewrites the same text): the button never looks stuck.
  const save = async () => {
    if (saved === null || busy) return;
    setBusy(true);
    setError(null);
    try {
      await writeMemoryFile(name, text);
      setSaved(text);
      setSavedAt(Date.now());
      onSaved();
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
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
        onSave={save}
      />
      <ErrorNote message={error} />
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

function History() {
  const [entries, setEntries] = useState<MemoryHistoryEntry[] | null>(null);
  const [next, setNext] = useState<string | undefined>();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const load = async (before?: string) => {
    setBusy(true);
    try {
      const page = await memoryHistory(20, before);
      setEntries((current) => (before && current ? [...current, ...page.entries] : page.entries));
      setNext(page.next ?? undefined);
      setError(null);
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    void load();
  }, [liveEpoch.value]);

  return (
    <section class="section" aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      <p class="muted section-intro">What Wren wrote down after conversations (HISTORY.md), newest first.</p>
      <ErrorNote message={error} onRetry={() => load()} />
      {entries === null && !error ? <Loading /> : null}
      {entries?.length === 0 ? (
        <Empty title="No history yet">Entries appear after conversations are consolidated.</Empty>
      ) : null}
      {entries?.length ? (
        <ol class="history">
          {entries.map((entry, index) => (
            <li key={`${entry.heading ?? entry.at ?? ''}-${index}`} class="card history-entry">
              <div class="row-meta">
                <strong>{entry.at ?? entry.heading ?? 'Entry'}</strong>
                {entry.sessionId ? (
                  <a href={hrefOf('chat', entry.sessionId)} class="muted">
                    session {entry.sessionId.slice(0, 8)}
                  </a>
                ) : null}
              </div>
              <MarkdownView text={entry.text} />
            </li>
          ))}
        </ol>
      ) : null}
      {next ? (
        <div class="load-more">
          <button type="button" class="btn" disabled={busy} onClick={() => load(next)}>
            {busy ? 'Loading…' : 'Older entries'}
          </button>
        </div>
      ) : null}
    </section>
  );
}

/** `[match]` brackets of a snippet → <mark>, everything else as text (no HTML from the server). */
function Snippet({ text }: { text: string }) {
  const parts = text.split(/(\[[^\]]*\])/g);
  return (
    <p class="snippet">
      {parts.map((part, index) =>
        /^\[[^\]]*\]$/.test(part) ? <mark key={`${index}-${part}`}>{part.slice(1, -1)}</mark> : part,
      )}
    </p>
  );
}

function Search() {
  const [query, setQuery] = useState('');
  const [results, setResults] = useState<MemorySearchResult[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!query.trim()) return;
    setBusy(true);
    try {
      setResults(await searchMemory(query.trim()));
      setError(null);
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="section" aria-labelledby="search-title">
      <h2 id="search-title">Search</h2>
      <form class="inline-form" onSubmit={submit}>
        <label for="memory-search" class="visually-hidden">
          Search memory
        </label>
        <input
          id="memory-search"
          type="search"
          value={query}
          placeholder="Words from past conversations and history"
          onInput={(event) => setQuery(event.currentTarget.value)}
        />
        <button type="submit" class="btn primary" disabled={busy || !query.trim()}>
          Search
        </button>
      </form>
      <ErrorNote message={error} />
      {results?.length === 0 ? <Empty title="Nothing found">Try fewer or other words.</Empty> : null}
      {results?.length ? (
        <ul class="rows">
          {results.map((result, index) => (
            <li key={`${result.source}-${result.sessionId ?? ''}-${result.seq ?? index}`} class="row">
              <div class="row-main">
                <div class="row-meta">
                  <Badge tone={result.source === 'history' ? 'info' : 'neutral'}>{result.source}</Badge>
                  {result.heading ? <strong>{result.heading}</strong> : null}
                  {result.role ? <span>{result.role}</span> : null}
                  {result.createdAt ? (
                    <Time at={result.createdAt} />
                  ) : result.when ? (
                    <span>{result.when}</span>
                  ) : null}
                  {result.sessionId ? <a href={hrefOf('chat', result.sessionId)}>open conversation</a> : null}
                </div>
                <Snippet text={result.snippet ?? result.excerpt ?? ''} />
              </div>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

/**
 * Wren's memory: the four Markdown files it reads every turn (editable), the consolidation history and a
 * search over past conversations. Routes: `#/memory/<file>`, `#/memory/history`, `#/memory/search`.
 */
export function MemoryPage({ param }: { param: string }) {
  const [files, setFiles] = useState<MemoryFile[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    listMemoryFiles().then(
      (list) => {
        setFiles(list);
        setError(null);
      },
      (failure) => setError(errorText(failure)),
    );
  useEffect(() => {
    void load();
  }, [liveEpoch.value]);

  const view = param || files?.[0]?.name || '';
  const tabs = [...(files ?? []).map((file) => file.name), 'history', 'search'];

  const go = (event: MouseEvent, target: string) => {
    if (dirtyFile && target !== view && !confirm(`Discard the unsaved changes to ${dirtyFile}?`)) {
      event.preventDefault();
      return;
    }
    event.preventDefault();
    navigate('memory', target);
  };

  const file = files?.find((item) => item.name === view);
  return (
    <div class="page page-wide">
      <PageHeader title="Memory" />
      <ErrorNote message={error} onRetry={load} />
      {files === null && !error ? <Loading /> : null}
      {files ? (
        <div class="memory-layout">
          <nav class="subnav" aria-label="Memory sections">
            <ul>
              {tabs.map((tab) => {
                const info = files.find((item) => item.name === tab);
                return (
                  <li key={tab}>
                    <a
                      href={hrefOf('memory', tab)}
                      aria-current={tab === view ? 'page' : undefined}
                      onClick={(event) => go(event, tab)}
                    >
                      <Icon name={info ? 'file' : tab === 'search' ? 'search' : 'clock'} size={16} />
                      <span>{info ? tab : tab === 'history' ? 'History' : 'Search'}</span>
                      {info ? (
                        <span class="muted subnav-meta">
                          {info.updatedAt === null ? 'empty' : bytes(info.size)}
                        </span>
                      ) : null}
                    </a>
                  </li>
                );
              })}
            </ul>
          </nav>
          <div class="memory-body">
            {view === 'history' ? <History /> : null}
            {view === 'search' ? <Search /> : null}
            {file?.problem ? <ErrorNote message={file.problem} /> : null}
            {file && !file.problem ? (
              <FileEditor key={file.name} name={file.name} onSaved={() => void load()} />
            ) : null}
            {file?.updatedAt ? (
              <p class="muted small">
                Last changed <Time at={file.updatedAt} />
              </p>
            ) : null}
            {!file && view !== 'history' && view !== 'search' ? (
              <Empty title="No such memory file">Pick one of the files on the left.</Empty>
            ) : null}
          </div>
        </div>
      ) : null}
    </div>
  );
}
