import { useEffect, useState } from 'preact/hooks';
import { memoryVersion, memoryVersions, restoreMemoryVersion } from '../../api';
import { Badge, Empty, ErrorNote, Loading, Time } from '../../components/common';
import { errorText } from '../../state';
import type { MemoryVersionDetail, MemoryVersionEntry } from '../../types';
import { DiffView } from './diff-view';

/** Who made a version, in words. */
export function authorLabel(author: string): string {
  if (author === 'disk') return 'edited on disk';
  if (author === 'web') return 'web editor';
  if (author.startsWith('tool:')) return `Wren's ${author.slice(5)} tool`;
  return author;
}

/**
 * The versions of one instruction file, newest first (time, who, note): each shows its diff against the
 * version before it, and an older one has Restore, which writes its text back as a new version — only over
 * the text the list shows as newest (If-Match), so a change landing meanwhile is never overwritten.
 * `revision` changes whenever the file was saved elsewhere on the page; `onRestored` reloads the editor.
 */
export function VersionsPanel({
  file,
  revision,
  onRestored,
}: {
  file: string;
  revision: number;
  onRestored: () => void;
}) {
  const [versions, setVersions] = useState<MemoryVersionEntry[] | null>(null);
  const [open, setOpen] = useState<MemoryVersionDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const load = () =>
    memoryVersions(file).then(
      (list) => {
        setVersions(list);
        setError(null);
      },
      (failure) => setError(errorText(failure)),
    );
  useEffect(() => {
    void load();
  }, [file, revision]);

  const show = async (id: number) => {
    if (open?.version.id === id) return setOpen(null);
    try {
      setOpen(await memoryVersion(id));
    } catch (failure) {
      setError(errorText(failure));
    }
  };

  const restore = async (version: MemoryVersionEntry) => {
    const newest = versions?.[0];
    setBusy(true);
    setNote(null);
    try {
      const answer = await restoreMemoryVersion(version.id, newest ? `"${newest.sha256}"` : undefined);
      if (!answer.ok) {
        const by = answer.conflict.changedBy ? ` (by ${authorLabel(answer.conflict.changedBy.author)})` : '';
        setNote(
          `${file} changed meanwhile${by}; nothing was restored. The list now shows the latest versions.`,
        );
      } else setNote(`Restored version #${version.id} as a new version.`);
      await load();
      onRestored();
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="section" aria-labelledby="versions-title">
      <h2 id="versions-title">Versions of {file}</h2>
      <p class="muted section-intro">
        Every change, by Wren or by you (an edit on disk shows up once Wren reads the file again), newest
        first.
      </p>
      <ErrorNote message={error} onRetry={load} />
      {note ? (
        <p class="muted" role="status">
          {note}
        </p>
      ) : null}
      {versions === null && !error ? <Loading /> : null}
      {versions?.length === 0 ? <Empty title="No versions yet">The first change is recorded.</Empty> : null}
      {versions?.length ? (
        <ol class="rows versions">
          {versions.map((version, index) => (
            <li key={version.id} class="row version-row" data-version={version.id}>
              <div class="row-main">
                <div class="row-meta">
                  <strong>#{version.id}</strong>
                  <Time at={version.createdAt} />
                  <Badge tone={version.author === 'disk' ? 'warn' : 'info'}>
                    {authorLabel(version.author)}
                  </Badge>
                  {version.note ? <span class="muted">{version.note}</span> : null}
                  {index === 0 ? <span class="muted">current</span> : null}
                </div>
                {open?.version.id === version.id ? <DiffView text={open.diff} /> : null}
              </div>
              <div class="row-actions">
                <button type="button" class="btn small" onClick={() => void show(version.id)}>
                  {open?.version.id === version.id ? 'Hide changes' : 'Show changes'}
                </button>
                {index > 0 ? (
                  <button
                    type="button"
                    class="btn small"
                    disabled={busy}
                    onClick={() => void restore(version)}
                    aria-label={`Restore version #${version.id}`}
                  >
                    Restore
                  </button>
                ) : null}
              </div>
            </li>
          ))}
        </ol>
      ) : null}
    </section>
  );
}
