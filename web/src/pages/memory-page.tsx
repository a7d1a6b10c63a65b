import { useEffect, useState } from 'preact/hooks';
import { listMemoryFiles, memoryHistory, searchMemory } from '../api';
import { Badge, Empty, ErrorNote, Loading, PageHeader, Time } from '../components/common';
import { Icon } from '../components/icons';
import { MarkdownView } from '../components/markdown-view';
import { bytes } from '../format';
import { liveEpoch } from '../live';
import { hrefOf, navigate } from '../router';
import { errorText } from '../state';
import type { MemoryFile, MemoryHistoryEntry, MemorySearchResult } from '../types';
import { FileEditor, unsavedFile } from './memory/file-editor';
import { ProposalsPanel } from './memory/proposals-panel';
import { VersionsPanel } from './memory/versions-panel';

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
 * Wren's memory: Dream's proposals waiting for the owner (when there are any), the four Markdown files it
 * reads every turn (editable), the consolidation history and a search over past conversations. Routes: `#/memory/<file>`, `#/memory/history`, `#/memory/search`.
 */
export function MemoryPage({ param }: { param: string }) {
  const [files, setFiles] = useState<MemoryFile[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Bumped by a save (the versions list reloads) and by a restore (the editor reloads the file).
  const [revision, setRevision] = useState(0);
  const [restored, setRestored] = useState(0);
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
    const dirtyFile = unsavedFile();
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
      <ProposalsPanel
        onAccepted={() => {
          // The line moved between two files: the list, the editor and its versions reload.
          setRevision((count) => count + 1);
          setRestored((count) => count + 1);
          void load();
        }}
      />
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
              <FileEditor
                key={`${file.name}-${restored}`}
                name={file.name}
                onSaved={() => {
                  setRevision((count) => count + 1);
                  void load();
                }}
              />
            ) : null}
            {file?.updatedAt ? (
              <p class="muted small">
                Last changed <Time at={file.updatedAt} />
              </p>
            ) : null}
            {file && !file.problem ? (
              <VersionsPanel
                file={file.name}
                revision={revision}
                onRestored={() => {
                  setRestored((count) => count + 1);
                  void load();
                }}
              />
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
