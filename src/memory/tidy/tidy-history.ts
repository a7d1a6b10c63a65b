/** The HISTORY.md entries and feed texts of the memory tidy. Pure. */
import type { TidyChanges } from './check-tidy.js';

/** Identifies the HISTORY.md entry of one tidy (so a replay after a crash appends nothing twice). */
export function tidyMarker(key: string): string {
  return `<!-- wren:tidy key=${key} -->`;
}

/** Identifies the HISTORY.md entry of the undo of one tidy. */
export function tidyUndoMarker(key: string): string {
  return `<!-- wren:tidy-undo key=${key} -->`;
}

const bare = (line: string) => `"${line.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '').trim()}"`;
const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** "merged 3 lines into 1, dropped 1 duplicate line and 1 contradicted line". */
export function tidySummary(changes: TidyChanges): string {
  const parts: string[] = [];
  const sources = changes.merged.reduce((sum, merge) => sum + merge.from.length, 0);
  if (sources > 0) parts.push(`merged ${plural(sources, 'line')} into ${changes.merged.length}`);
  const count = (reason: string) => changes.removed.filter((removal) => removal.reason === reason).length;
  const dropped = [
    [count('duplicate'), 'duplicate line'],
    [count('superseded'), 'contradicted line'],
    [count('stale'), 'past one-off line'],
  ] as const;
  let first = true;
  for (const [number, word] of dropped) {
    if (number === 0) continue;
    parts.push(`${first ? 'dropped ' : ''}${plural(number, word)}`);
    first = false;
  }
  return parts.join(', ').replace(/, ([^,]*)$/, ' and $1');
}

/** One line per change: what was merged into what, what was dropped and why. */
export function tidyDiff(changes: TidyChanges): string[] {
  return [
    ...changes.merged.map((merge) => `- merged ${merge.from.map(bare).join(' + ')} → ${bare(merge.into)}`),
    ...changes.removed.map((removal) =>
      removal.reason === 'duplicate'
        ? `- dropped ${bare(removal.line)} (said by ${bare(removal.by)})`
        : removal.reason === 'stale'
          ? `- dropped ${bare(removal.line)} (a one-off whose dates are past)`
          : `- dropped ${bare(removal.line)} (replaced by the newer ${bare(removal.by)})`,
    ),
  ];
}

/** The HISTORY.md entry of a tidy: heading, marker, a summary and the diff. */
export function tidyHistoryEntry(options: {
  stamp: string;
  key: string;
  changes: TidyChanges;
  /** Dream's proposals of this pass (`#id`, the line, the target file). */
  proposals?: ReadonlyArray<{ id: number; text: string; file: string }>;
}): string {
  const changed = options.changes.merged.length + options.changes.removed.length > 0;
  return [
    `## ${options.stamp} · memory tidy`,
    tidyMarker(options.key),
    ...(changed
      ? [
          `Tidied MEMORY.md: ${tidySummary(options.changes)}. \`wren memory undo-tidy\` restores the file as it was before.`,
        ]
      : []),
    ...tidyDiff(options.changes),
    ...(options.proposals ?? []).map(
      (proposal) => `- proposed moving ${bare(proposal.text)} to ${proposal.file} (proposal #${proposal.id})`,
    ),
    '',
  ].join('\n');
}

/** The HISTORY.md entry of an undo. */
export function tidyUndoEntry(options: {
  stamp: string;
  key: string;
  tidiedAt: string;
  forced: boolean;
}): string {
  const forced = options.forced
    ? ' with --force (MEMORY.md had changed since the tidy; those changes were replaced)'
    : '';
  return [
    `## ${options.stamp} · memory tidy undone`,
    tidyUndoMarker(options.key),
    `Restored MEMORY.md as it was before the memory tidy of ${options.tidiedAt} (\`wren memory undo-tidy\`${forced}).`,
    '',
  ].join('\n');
}
