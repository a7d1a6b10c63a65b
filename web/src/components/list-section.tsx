import type { ComponentChildren, VNode } from 'preact';
import { ErrorNote, Loading } from './common';

/**
 * The list part of a list page: a heading with its controls (filters, search), why the list could not be
 * read (with Retry), a spinner until the first answer, `empty` for an empty list, else one row per item.
 */
export function ListSection<T>({
  id,
  title,
  controls,
  items,
  error,
  onRetry,
  empty,
  row,
}: {
  /** The heading's id (the section is labelled by it). */
  id: string;
  title: ComponentChildren;
  controls?: ComponentChildren;
  /** Null until the first answer. */
  items: T[] | null;
  error: string | null;
  onRetry: () => void;
  empty: ComponentChildren;
  row: (item: T) => VNode;
}) {
  return (
    <section class="section" aria-labelledby={id}>
      <div class="section-head">
        <h2 id={id}>{title}</h2>
        {controls}
      </div>
      <ErrorNote message={error} onRetry={onRetry} />
      {items === null && !error ? <Loading /> : null}
      {items?.length === 0 ? empty : null}
      {items?.length ? <ul class="rows">{items.map(row)}</ul> : null}
    </section>
  );
}
