import { join } from 'node:path';
import { estimateTokens } from '../../llm/token-estimate.js';
import type { ChatModel, ModelResult, Usage } from '../../llm/types.js';
import type { Stores } from '../../store/open-stores.js';
import type { TaintStore } from '../../store/ports.js';
import { updateInstructionFile } from '../file-history.js';
import { formatStamp } from '../format-time.js';
import { appendHistoryEntry } from '../history-file.js';
import { readSnapshot, updateMarkdownFile } from '../markdown-file.js';
import type { MemoryConfig } from '../memory-config.js';
import { checkTidy, type TidyChanges } from './check-tidy.js';
import { factAges } from './fact-ages.js';
import { parseMemory } from './fact-lines.js';
import { tidyDiff, tidyHistoryEntry, tidyMarker, tidySummary } from './tidy-history.js';
import { type TidyRecord, TidyRecords, textHash } from './tidy-records.js';
import { parseTidy, TIDY_INSTRUCTION_CHARS, TidyModelError, tidyRequest } from './tidy-request.js';

/** Points of a tidy a test can hold (to stop the process there) or observe. */
export type TidyStage = 'model-done' | 'saved' | 'memory-written' | 'history-written';

export interface MemoryTidyOptions {
  /** The home's stores: the tidy's records live in settings; taint says which HISTORY.md entries to trust. */
  stores: Pick<Stores, 'settings' | 'taint'> & Partial<Pick<Stores, 'fileVersions'>>;
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
 * What a run did. `tidied`: MEMORY.md was rewritten and HISTORY.md has the diff. `unchanged`: nothing to do
 * (no model call when the file has under two facts or did not change since the last tidy looked at it).
 * `skipped`: MEMORY.md changed while the tidy ran, so it was left alone. `refused`: the model's answer
 * broke the rules of checkTidy and was thrown away. `failed`: the model call failed.
 */
export interface TidyResult {
  status: 'tidied' | 'unchanged' | 'skipped' | 'refused' | 'failed';
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
    const fileTokens = estimateTokens(snapshot.text);
    const needed = fileTokens + 256;
    // The request holds the file and its dates; the answer, the whole file again.
    const window = fileTokens * 2 + Math.ceil(TIDY_INSTRUCTION_CHARS / 3) + needed;
    if (needed > maxOutputTokens || window > limits.contextWindow) {
      this.records.setChecked(snapshot.hash);
      return {
        status: 'failed',
        text: `Memory tidy did not run: MEMORY.md (about ${fileTokens} tokens) is too long for the model tagged "${config.modelTag}" to write back (${maxOutputTokens} output tokens). MEMORY.md is unchanged.`,
      };
    }
    const ages = factAges({
      facts,
      history: readSnapshot(join(this.options.workspace(), 'HISTORY.md')).text,
      untrustedSessions: this.taint.untrustedSessions(),
    });
    const result = await this.ask(
      tidyRequest({ memory: snapshot.text, facts, ages, tag: config.modelTag, maxOutputTokens }),
      signal,
    );
    let answer: ReturnType<typeof parseTidy>;
    try {
      answer = parseTidy(result);
    } catch (error) {
      if (!(error instanceof TidyModelError)) throw error;
      return {
        status: 'failed',
        text: `Memory tidy could not run: ${error.message}. MEMORY.md is unchanged.`,
      };
    }
    await this.options.onStage?.('model-done');
    const verdict = checkTidy({
      before: snapshot.text,
      after: answer.text,
      ages,
      replacedBy: answer.replacedBy,
    });
    if (!verdict.ok || verdict.unchanged) {
      // The same file would get the same answer: it is sent again only once it changed.
      this.records.setChecked(snapshot.hash);
      return verdict.ok
        ? { status: 'unchanged', text: 'MEMORY.md needed no tidying.' }
        : {
            status: 'refused',
            text: `Memory tidy refused the model's answer and left MEMORY.md unchanged: ${verdict.reason}.`,
          };
    }
    const record: TidyRecord = {
      key,
      at: this.clock(),
      before: snapshot.text,
      beforeHash: snapshot.hash,
      after: verdict.text,
      afterHash: textHash(verdict.text),
      changes: verdict.changes,
    };
    this.records.saveLast(record);
    await this.options.onStage?.('saved');
    return this.apply(record);
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

  /** Writes a decided tidy: MEMORY.md (only over the text it was decided on), then HISTORY.md. Idempotent. */
  private async apply(record: TidyRecord): Promise<TidyResult> {
    const versions = this.options.stores.fileVersions;
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
    await this.options.onStage?.('memory-written');
    const entry = tidyHistoryEntry({
      stamp: formatStamp(record.at, this.options.timezone?.()),
      key: record.key,
      changes: record.changes,
    });
    const marker = tidyMarker(record.key);
    await updateMarkdownFile(join(this.options.workspace(), 'HISTORY.md'), (current) =>
      appendHistoryEntry(current, entry, marker),
    );
    await this.options.onStage?.('history-written');
    this.records.setChecked(record.afterHash);
    return {
      status: 'tidied',
      text: [
        `Tidied MEMORY.md: ${tidySummary(record.changes)}.`,
        ...tidyDiff(record.changes),
        '`wren memory undo-tidy` restores it as it was.',
      ].join('\n'),
      changes: record.changes,
    };
  }
}
