import { join } from 'node:path';
import type { ChatModel, ModelResult, Usage } from '../../llm/types.js';
import type { MemoryProposal } from '../../store/memory-proposal-repository.js';
import type { Stores } from '../../store/open-stores.js';
import type { TaintStore } from '../../store/ports.js';
import { type DreamDecision, dreamPass } from '../dream/dream-pass.js';
import { updateInstructionFile } from '../file-history.js';
import { formatStamp } from '../format-time.js';
import { appendHistoryEntry } from '../history-file.js';
import { readSnapshot, updateMarkdownFile } from '../markdown-file.js';
import type { MemoryConfig } from '../memory-config.js';
import type { TidyChanges } from './check-tidy.js';
import { factAges } from './fact-ages.js';
import { parseMemory } from './fact-lines.js';
import { tidyDiff, tidyHistoryEntry, tidyMarker, tidySummary } from './tidy-history.js';
import { type TidyRecord, TidyRecords, textHash } from './tidy-records.js';
import type { tidyRequest } from './tidy-request.js';

/** Points of a tidy a test can hold (to stop the process there) or observe. */
export type TidyStage = 'model-done' | 'saved' | 'memory-written' | 'history-written';

export interface MemoryTidyOptions {
  /** The home's stores: the tidy's records live in settings; taint says which HISTORY.md entries to trust. */
  stores: Pick<Stores, 'settings' | 'taint'> & Partial<Pick<Stores, 'fileVersions' | 'memoryProposals'>>;
  model: ChatModel;
  /** The workspace holding MEMORY.md and HISTORY.md; read at every run. */
  workspace: () => string;
  config: () => MemoryConfig;
  /** IANA zone of the HISTORY.md stamps; the system zone when omitted. */
  timezone?: () => string | undefined;
  clock?: () => number;
  /** Token usage of every tidy call (to record it like a turn's). */
  onUsage?: (usage: Usage, endpoint?: string) => void;
  /** Test hook: runs at each stage; a returned promise holds the tidy there. */
  onStage?: (stage: TidyStage) => void | Promise<void>;
}

/**
 * What a run did. `tidied`: MEMORY.md was rewritten and HISTORY.md has the diff. `proposed`: MEMORY.md is as
 * it was but the pass made proposals. `unchanged`: nothing to do
 * (no model call when the file has under two facts or did not change since the last tidy looked at it).
 * `skipped`: MEMORY.md changed while the tidy ran, so it was left alone. `refused`: the model's answer
 * broke the rules of checkTidy and was thrown away. `failed`: the model call failed.
 */
export interface TidyResult {
  status: 'tidied' | 'proposed' | 'unchanged' | 'skipped' | 'refused' | 'failed';
  /** For the owner (the feed). */
  text: string;
  changes?: TidyChanges;
}

/** Output tokens a tidy may use at most: a whole MEMORY.md comes back. */
const OUTPUT_TOKENS = 8192;

/**
 * The memory tidy ("dream"): asks the consolidation model (tag `memory.model_tag`) to merge duplicate facts of
 * MEMORY.md and drop contradicted ones, checks the answer (checkTidy: it may add nothing), then writes
 * MEMORY.md atomically and the diff to HISTORY.md. Its input is MEMORY.md — which holds only facts from
 * trusted content, since consolidation keeps facts of untrusted chunks out — and the dates of trusted
 * HISTORY.md entries; it has no tools. The decision is saved (with the old file, for `wren memory
 * undo-tidy`) before MEMORY.md is written, so `run` with the same key after a crash finishes that tidy
 * without asking the model again and writes nothing twice. Runs one at a time.
 */
export class MemoryTidy {
  private readonly records: TidyRecords;
  private readonly taint: TaintStore;
  private readonly clock: () => number;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: MemoryTidyOptions) {
    this.records = new TidyRecords(options.stores.settings);
    this.taint = options.stores.taint;
    this.clock = options.clock ?? Date.now;
  }

  /**
   * Runs the tidy of the occurrence `key` (`tidy:<slot>`). Idempotent per key. Never throws for a model or
   * an answer problem (see TidyResult); file-system and database errors reject.
   */
  run(key: string, signal?: AbortSignal): Promise<TidyResult> {
    const next = this.queue.then(() => this.runNow(key, signal));
    this.queue = next.catch(() => {});
    return next;
  }

  private get memoryPath(): string {
    return join(this.options.workspace(), 'MEMORY.md');
  }

  private async runNow(key: string, signal?: AbortSignal): Promise<TidyResult> {
    const last = this.records.last();
    if (last?.key === key) {
      return last.undoneAt === undefined
        ? this.apply(last)
        : { status: 'unchanged', text: 'This memory tidy was undone.' };
    }
    const snapshot = readSnapshot(this.memoryPath);
    const { facts } = parseMemory(snapshot.text);
    if (facts.length < 2) return { status: 'unchanged', text: 'MEMORY.md has fewer than two facts to tidy.' };
    if (this.records.checked() === snapshot.hash)
      return { status: 'unchanged', text: 'MEMORY.md has not changed since the last tidy looked at it.' };
    const config = this.options.config();
    const limits = this.options.model.limits(config.modelTag);
    const maxOutputTokens = Math.min(limits.maxOutputTokens, OUTPUT_TOKENS);
    // A chunk comes back whole, and the request holds it twice (the text and its dates).
    const chunkTokens = Math.max(
      100,
      Math.min(config.dream.chunkTokens, maxOutputTokens - 256, Math.floor(limits.contextWindow / 4)),
    );
    const ages = factAges({
      facts,
      history: readSnapshot(join(this.options.workspace(), 'HISTORY.md')).text,
      untrustedSessions: this.taint.untrustedSessions(),
    });
    const decision = await dreamPass({
      text: snapshot.text,
      facts,
      ages,
      today: localDay(this.clock(), this.options.timezone?.()),
      dream: { ...config.dream, chunkTokens },
      tag: config.modelTag,
      maxOutputTokens,
      settled: this.records.settled(),
      ask: (request) => this.ask(request, signal),
    });
    await this.options.onStage?.('model-done');
    this.records.addSettled(decision.settled);
    const changed = decision.text !== snapshot.text;
    if (!changed && decision.moves.length === 0) return this.nothingApplied(snapshot.hash, decision);
    const record: TidyRecord = {
      key,
      at: this.clock(),
      before: snapshot.text,
      beforeHash: snapshot.hash,
      after: decision.text,
      afterHash: textHash(decision.text),
      changes: decision.changes,
      moves: decision.moves,
      notes: [
        ...decision.notes,
        ...decision.refusals.map((reason) => `Refused the answer for a part of MEMORY.md: ${reason}.`),
        ...decision.failures.map((reason) => `Could not tidy a part of MEMORY.md: ${reason}.`),
      ],
      usage: {
        calls: decision.calls,
        tokens: decision.tokens,
        budget: decision.budget,
        deferred: decision.deferred,
      },
    };
    // Only a rewrite is kept as the last tidy (to finish after a crash, and for undo-tidy): a pass that
    // only proposed leaves the last rewrite undoable, and replaying it adds no proposal twice.
    if (changed) this.records.saveLast(record);
    await this.options.onStage?.('saved');
    return this.apply(record);
  }

  /** A pass that changed nothing and proposed nothing: why, for the feed (or no entry at all). */
  private nothingApplied(hash: string, decision: DreamDecision): TidyResult {
    // The same file would get the same answers: it is sent again only once it changed.
    if (decision.deferred === 0 && decision.failures.length === 0) this.records.setChecked(hash);
    const tail = [...decision.notes, usageLine(decision)].join('\n');
    if (decision.refusals.length > 0)
      return {
        status: 'refused',
        text: `Memory tidy refused the model's answer and left MEMORY.md unchanged: ${decision.refusals.join('; ')}.\n${tail}`,
      };
    if (decision.failures.length > 0)
      return {
        status: 'failed',
        text: `Memory tidy could not run: ${decision.failures.join('; ')}. MEMORY.md is unchanged.\n${tail}`,
      };
    if (decision.calls === 0 && decision.deferred > 0)
      return {
        status: 'failed',
        text: `Memory tidy did not run: a part of MEMORY.md needs more than the pass's budget of ${decision.budget} tokens (memory.dream.budget_tokens). MEMORY.md is unchanged.`,
      };
    return {
      status: 'unchanged',
      text: `MEMORY.md needed no tidying${decision.deferred > 0 ? ` in the parts looked at. ${usageLine(decision)}` : '.'}`,
    };
  }

  private async ask(request: ReturnType<typeof tidyRequest>, signal?: AbortSignal): Promise<ModelResult> {
    let result: ModelResult | undefined;
    for await (const event of this.options.model.stream(request, signal)) {
      if (event.type === 'done') result = event.result;
    }
    if (result && result.usage.inputTokens + result.usage.outputTokens > 0)
      this.options.onUsage?.(result.usage, result.endpoint);
    return (
      result ?? {
        text: '',
        toolCalls: [],
        stopReason: 'error',
        usage: { inputTokens: 0, outputTokens: 0 },
        errorMessage: 'the model stream ended without a result',
      }
    );
  }

  /**
   * Writes a decided tidy: MEMORY.md (only over the text it was decided on), then HISTORY.md, then its
   * proposals. Idempotent.
   */
  private async apply(record: TidyRecord): Promise<TidyResult> {
    const versions = this.options.stores.fileVersions;
    const rewrites = record.after !== record.before;
    if (rewrites) {
      const written = await updateInstructionFile(
        {
          workspace: this.options.workspace(),
          path: 'MEMORY.md',
          author: 'tidy',
          note: tidySummary(record.changes),
          ...(versions ? { versions } : {}),
        },
        (current) => (current === record.before ? record.after : undefined),
      );
      if (written.text !== record.after) {
        this.records.forget(record.key);
        return {
          status: 'skipped',
          text: 'Memory tidy left MEMORY.md alone: it changed while the tidy ran. The next tidy looks again.',
        };
      }
    }
    await this.options.onStage?.('memory-written');
    const proposals = this.addProposals(record);
    const entry = tidyHistoryEntry({
      stamp: formatStamp(record.at, this.options.timezone?.()),
      key: record.key,
      changes: record.changes,
      proposals,
    });
    const marker = tidyMarker(record.key);
    await updateMarkdownFile(join(this.options.workspace(), 'HISTORY.md'), (current) =>
      appendHistoryEntry(current, entry, marker),
    );
    await this.options.onStage?.('history-written');
    const complete = (record.usage?.deferred ?? 0) === 0;
    if (complete) this.records.setChecked(record.afterHash);
    return {
      status: rewrites ? 'tidied' : 'proposed',
      text: [
        rewrites
          ? `Tidied MEMORY.md: ${tidySummary(record.changes)}.`
          : 'Memory tidy left MEMORY.md as it is.',
        ...tidyDiff(record.changes),
        ...proposalLines(proposals),
        ...(record.notes ?? []),
        ...(record.usage ? [usageLine(record.usage)] : []),
        ...(rewrites ? ['`wren memory undo-tidy` restores it as it was.'] : []),
      ].join('\n'),
      changes: record.changes,
    };
  }

  /** The record's moves as proposals (those made before, whatever became of them, are not made again). */
  private addProposals(record: TidyRecord): MemoryProposal[] {
    const store = this.options.stores.memoryProposals;
    if (!store || !record.moves?.length) return [];
    store.add(record.moves.map((move) => ({ ...move, dreamKey: record.key })));
    return store.list().filter((proposal) => proposal.dreamKey === record.key);
  }
}

/** "Used 3,412 of 24,000 tokens in 2 model calls." (and what waits for the next pass). */
function usageLine(usage: { calls: number; tokens: number; budget: number; deferred: number }): string {
  const number = (value: number) => value.toLocaleString('en-US');
  const calls = `${usage.calls} model call${usage.calls === 1 ? '' : 's'}`;
  const deferred =
    usage.deferred > 0
      ? ` ${usage.deferred} part${usage.deferred === 1 ? '' : 's'} of MEMORY.md wait for the next pass (memory.dream.budget_tokens).`
      : '';
  return `Used ${number(usage.tokens)} of ${number(usage.budget)} tokens in ${calls}.${deferred}`;
}

/** The feed's lines on the proposals of a pass: what moves where, and how the owner decides. */
function proposalLines(proposals: readonly MemoryProposal[]): string[] {
  const pending = proposals.filter((proposal) => proposal.status === 'pending');
  if (pending.length === 0) return [];
  return [
    `Proposed ${pending.length === 1 ? 'a move' : `${pending.length} moves`} for you to accept or dismiss (\`wren memory accept|dismiss ID\`, /memory proposals, or Memory in the web app):`,
    ...pending.map(
      (proposal) => `- #${proposal.id} ${JSON.stringify(bare(proposal.text))} → ${proposal.file}`,
    ),
  ];
}

const bare = (line: string) => line.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '').trim();

/** `YYYY-MM-DD` of `at` in `timezone` (the system zone when undefined). */
function localDay(at: number, timezone: string | undefined): string {
  return new Intl.DateTimeFormat('en-CA', timezone ? { timeZone: timezone } : {}).format(at);
}
