import { join } from 'node:path';
import {
  ConsolidationConflictError,
  type MemoryState,
  type PendingConsolidation,
  type SessionStore,
  type StoredMessage,
} from '../agent/session-store.js';
import { estimateTokens } from '../llm/token-estimate.js';
import type { ChatModel, ModelResult, Usage } from '../llm/types.js';
import type {
  ConsolidationStatusEntry,
  ConsolidationStatusStore,
} from '../store/consolidation-status-repository.js';
import type { FileVersionStore } from '../store/ports.js';
import {
  consolidationRequest,
  INSTRUCTION_CHARS,
  parseConsolidation,
  renderMessage,
} from './consolidation-request.js';
import { updateInstructionFile } from './file-history.js';
import { formatStamp } from './format-time.js';
import { appendHistoryEntry, formatHistoryEntry, historyMarker } from './history-file.js';
import { readSnapshot, updateMarkdownFile } from './markdown-file.js';
import type { MemoryConfig } from './memory-config.js';
import { applyMemoryEdits } from './memory-file.js';

/** Points of a consolidation a test can hold (to kill the process there) or observe. */
export type ConsolidationStage =
  | 'model-start'
  | 'model-done'
  | 'saved'
  | 'history-written'
  | 'memory-written'
  | 'committed';

export interface ConsolidatorOptions {
  store: SessionStore;
  model: ChatModel;
  status: ConsolidationStatusStore;
  /** The workspace folder holding MEMORY.md and HISTORY.md; read at every job. */
  workspace: () => string;
  config: () => MemoryConfig;
  /** Tokens of live history one turn may use (context window − max output − reserve). */
  historyBudget: () => number;
  /** IANA zone for HISTORY.md stamps; the system zone when omitted. */
  timezone?: () => string | undefined;
  clock?: () => number;
  /** Token usage of every consolidation call (to record it like a turn's). */
  onUsage?: (info: { sessionId: string; usage: Usage; endpoint?: string }) => void;
  /** Failures (also recorded in the status store); never secrets. */
  onError?: (error: unknown, sessionId: string) => void;
  /**
   * When the session first read untrusted content (web pages, MCP output, a non-owner's message), if it
   * did: facts from a chunk at or after that time are kept out of MEMORY.md (they are listed in the
   * HISTORY.md entry instead), so an injected "fact" never reaches every later prompt.
   */
  untrustedSince?: (sessionId: string) => number | undefined;
  /** Test hook: runs at each stage; a returned promise holds the job there. */
  onStage?: (stage: ConsolidationStage, sessionId: string) => void | Promise<void>;
  /** The instruction files' history: each MEMORY.md change is recorded as a version by `consolidation`. */
  versions?: FileVersionStore;
}

/** What a pending consolidation carries besides the summary: its file edits, fixed when it was saved. */
interface ConsolidationPayload {
  marker: string;
  history: string;
  add: string[];
  remove: string[];
  messages: number;
  inputTokens: number;
  outputTokens: number;
}

interface Chunk {
  lines: string[];
  throughSeq: number;
  count: number;
  /** When its newest message was stored. */
  lastAt: number;
}

/** Messages read per consolidation step at most. */
const PAGE = 400;
/** Output tokens a consolidation may use at most. */
const OUTPUT_TOKENS = 4096;
/** Chunks per job at most (a job that would need more continues at the next turn). */
const MAX_ROUNDS = 50;
const MAX_FACTS = 30;

/**
 * Background consolidation of sessions into HISTORY.md, MEMORY.md and the cascading session summary.
 *
 * - `maybeConsolidate` (after every turn) starts a job when a session's live history passes
 *   `consolidateAt × historyBudget` tokens; it consolidates the oldest turns down to half that. It never
 *   blocks and never throws; one job per session at a time.
 * - Each chunk: the model (tag `config.modelTag`) is asked with a `save_memory` tool (plain-text fallback);
 *   the answer is saved as a pending consolidation (conditional on the marker, so a range is never
 *   summarised twice); HISTORY.md and MEMORY.md are updated idempotently (atomic, merged with hand edits);
 *   then the marker and summary move in one transaction. Turns leave the live history only then.
 * - `recover()` finishes consolidations a crash interrupted, without asking the model again.
 * - Failures are recorded in the status store and retried with exponential backoff; the session keeps
 *   answering meanwhile (its prompt stays bounded by the token budget).
 */
export class Consolidator {
  private readonly jobs = new Map<string, Promise<boolean>>();
  private readonly again = new Set<string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly controller = new AbortController();
  private readonly clock: () => number;
  private closed = false;

  constructor(private readonly options: ConsolidatorOptions) {
    this.clock = options.clock ?? Date.now;
  }

  /** Starts a background job for `sessionId` when its live history is over the threshold. Never throws. */
  maybeConsolidate(sessionId: string): void {
    if (this.closed) return;
    if (this.jobs.has(sessionId)) {
      this.again.add(sessionId);
      return;
    }
    const due = this.options.status.get(sessionId)?.nextAttemptAt;
    if (due !== undefined && due > this.clock()) {
      this.scheduleRetry(sessionId, due - this.clock());
      return;
    }
    void this.start(sessionId, 'threshold');
  }

  /**
   * Consolidates everything the session has not consolidated yet (before `/new`), ignoring the threshold
   * and any backoff. Waits for a running job first.
   * @returns true when the whole session is consolidated.
   */
  async flush(sessionId: string): Promise<boolean> {
    for (let job = this.jobs.get(sessionId); job; job = this.jobs.get(sessionId)) await job;
    if (this.closed) return false;
    return this.start(sessionId, 'all');
  }

  /** Finishes consolidations a crash left pending (file edits, then the marker). @returns how many. */
  async recover(): Promise<number> {
    const pending = await this.options.store.pendingConsolidations();
    let done = 0;
    for (const item of pending) {
      try {
        await this.apply(item);
        done++;
      } catch (error) {
        this.fail(item.sessionId, error);
      }
    }
    return done;
  }

  /** Resolves when no job is running (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.jobs.size > 0) await Promise.allSettled([...this.jobs.values()]);
  }

  /** Per-session status (failures, last error, next retry, totals). */
  status(): ConsolidationStatusEntry[] {
    return this.options.status.list();
  }

  /**
   * Stops scheduling, lets running jobs finish for up to `graceMs`, then aborts them (an aborted job leaves
   * nothing half done: its range stays unconsolidated or pending, and is finished at the next start).
   */
  async close(graceMs = 5_000): Promise<void> {
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.idle(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
    this.controller.abort(new Error('Wren is shutting down'));
    await this.idle();
  }

  private start(sessionId: string, mode: 'threshold' | 'all'): Promise<boolean> {
    const job = this.run(sessionId, mode)
      .catch((error: unknown) => {
        this.fail(sessionId, error);
        return false;
      })
      .finally(() => {
        this.jobs.delete(sessionId);
        if (this.again.delete(sessionId)) this.maybeConsolidate(sessionId);
      });
    this.jobs.set(sessionId, job);
    return job;
  }

  private async run(sessionId: string, mode: 'threshold' | 'all'): Promise<boolean> {
    for (const item of await this.options.store.pendingConsolidations(sessionId)) await this.apply(item);
    for (let round = 0; round < MAX_ROUNDS; round++) {
      if (this.controller.signal.aborted) return false;
      const state = await this.options.store.memoryState(sessionId);
      const target = this.target(state, mode);
      if (target <= 0) return true;
      const chunk = await this.pickChunk(sessionId, state, target);
      if (!chunk) return true;
      if (!(await this.consolidateChunk(sessionId, state, chunk))) return false;
    }
    return false;
  }

  /** Tokens to consolidate now: all in `all` mode; down to half the threshold once it is passed. */
  private target(state: MemoryState, mode: 'threshold' | 'all'): number {
    if (state.lastSeq <= state.consolidatedSeq) return 0;
    if (mode === 'all') return Math.max(1, state.unconsolidatedTokens);
    const threshold = Math.floor(this.options.config().consolidateAt * this.options.historyBudget());
    return state.unconsolidatedTokens > threshold
      ? state.unconsolidatedTokens - Math.floor(threshold / 2)
      : 0;
  }

  /**
   * The oldest live messages covering `target` tokens, ending at a turn boundary (the next message is the
   * owner's, or there is none), rendered within what the consolidation model's window holds.
   */
  private async pickChunk(sessionId: string, state: MemoryState, target: number): Promise<Chunk | undefined> {
    const { model } = this.options;
    const config = this.options.config();
    const limits = model.limits(config.modelTag);
    const memoryChars = Math.min(this.memoryText().length, config.memoryFileChars);
    const fixed = Math.ceil((INSTRUCTION_CHARS + memoryChars + state.summary.length) / 3);
    const room = Math.max(
      300,
      limits.contextWindow - Math.min(limits.maxOutputTokens, OUTPUT_TOKENS) - fixed - 256,
    );
    const page = await this.options.store.messagesAfter(sessionId, state.consolidatedSeq, PAGE);
    if (page.length === 0) return undefined;
    const zone = this.options.timezone?.();
    const stamp = (ms: number) => formatStamp(ms, zone);
    const lines: string[] = [];
    let used = 0;
    let covered = 0;
    let boundary = -1;
    for (let index = 0; index < page.length; index++) {
      const stored = page[index] as StoredMessage;
      const line = renderMessage(stored, stamp);
      const cost = estimateTokens(line) + 4;
      if (used + cost > room && lines.length > 0) break;
      lines.push(line);
      used += cost;
      covered += stored.tokens;
      const next = page[index + 1];
      // The newest stored message ends a turn only when it is a final answer: turns are stored message by
      // message, so a tool call or result at the end may belong to a turn that is still running.
      const atBoundary = next ? next.message.role === 'user' : page.length < PAGE && isFinalAnswer(stored);
      if (atBoundary) {
        boundary = index;
        if (covered >= target) break;
      }
    }
    const end = boundary >= 0 ? boundary : lines.length - 1; // one turn larger than the window: cut inside it
    return {
      lines: lines.slice(0, end + 1),
      throughSeq: page[end]!.seq,
      count: end + 1,
      lastAt: page[end]!.createdAt,
    };
  }

  private async consolidateChunk(sessionId: string, state: MemoryState, chunk: Chunk): Promise<boolean> {
    const config = this.options.config();
    const signal = this.controller.signal;
    const limits = this.options.model.limits(config.modelTag);
    await this.stage('model-start', sessionId);
    const request = consolidationRequest({
      transcript: chunk.lines,
      previousSummary: state.summary,
      memory: this.memoryText(),
      memoryCap: config.memoryFileChars,
      summaryChars: config.summaryChars,
      tag: config.modelTag,
      maxOutputTokens: Math.min(limits.maxOutputTokens, OUTPUT_TOKENS),
    });
    let result: ModelResult | undefined;
    for await (const event of this.options.model.stream(request, signal)) {
      if (event.type === 'done') result = event.result;
    }
    if (signal.aborted) return false;
    if (result) {
      this.options.onUsage?.({
        sessionId,
        usage: result.usage,
        ...(result.endpoint ? { endpoint: result.endpoint } : {}),
      });
    }
    const output = parseConsolidation(
      result ?? {
        text: '',
        toolCalls: [],
        stopReason: 'error',
        usage: { inputTokens: 0, outputTokens: 0 },
        errorMessage: 'the model stream ended without a result',
      },
    );
    await this.stage('model-done', sessionId);
    const fromSeq = state.consolidatedSeq + 1;
    const untrustedAt = this.options.untrustedSince?.(sessionId);
    const held = untrustedAt !== undefined && untrustedAt <= chunk.lastAt;
    const add = output.memoryAdd.slice(0, MAX_FACTS);
    const remove = output.memoryRemove.slice(0, MAX_FACTS);
    const payload: ConsolidationPayload = {
      marker: historyMarker(sessionId, fromSeq, chunk.throughSeq),
      history: formatHistoryEntry({
        stamp: formatStamp(this.clock(), this.options.timezone?.()),
        sessionId,
        fromSeq,
        throughSeq: chunk.throughSeq,
        text: held ? withHeldFacts(output.historyEntry, add, remove) : output.historyEntry,
      }),
      add: held ? [] : add,
      remove: held ? [] : remove,
      messages: chunk.count,
      inputTokens: result?.usage.inputTokens ?? 0,
      outputTokens: result?.usage.outputTokens ?? 0,
    };
    const summary =
      output.summary.length > config.summaryChars
        ? `${output.summary.slice(0, config.summaryChars - 1)}…`
        : output.summary;
    try {
      await this.options.store.beginConsolidation({
        sessionId,
        fromSeq,
        throughSeq: chunk.throughSeq,
        summary,
        payload,
      });
    } catch (error) {
      if (error instanceof ConsolidationConflictError) return false; // another writer got there first
      throw error;
    }
    await this.stage('saved', sessionId);
    const [pending] = await this.options.store.pendingConsolidations(sessionId);
    if (pending) await this.apply(pending);
    return true;
  }

  /** Applies a pending consolidation's file edits (idempotently) and commits it. */
  private async apply(pending: PendingConsolidation): Promise<void> {
    const payload = pending.payload as ConsolidationPayload;
    const workspace = this.options.workspace();
    await updateMarkdownFile(join(workspace, 'HISTORY.md'), (current) =>
      appendHistoryEntry(current, payload.history, payload.marker),
    );
    await this.stage('history-written', pending.sessionId);
    await updateInstructionFile(
      {
        workspace,
        path: 'MEMORY.md',
        author: 'consolidation',
        note: `session ${pending.sessionId.slice(0, 8)}: +${payload.add.length} −${payload.remove.length}`,
        ...(this.options.versions ? { versions: this.options.versions } : {}),
      },
      (current) => applyMemoryEdits(current, { add: payload.add, remove: payload.remove }),
    );
    await this.stage('memory-written', pending.sessionId);
    await this.options.store.commitConsolidation(pending.sessionId);
    this.options.status.recordSuccess(pending.sessionId, {
      at: this.clock(),
      messages: payload.messages,
      inputTokens: payload.inputTokens,
      outputTokens: payload.outputTokens,
    });
    await this.stage('committed', pending.sessionId);
  }

  private memoryText(): string {
    return readSnapshot(join(this.options.workspace(), 'MEMORY.md')).text;
  }

  private async stage(stage: ConsolidationStage, sessionId: string): Promise<void> {
    await this.options.onStage?.(stage, sessionId);
  }

  private fail(sessionId: string, error: unknown): void {
    if (this.controller.signal.aborted) return; // shutting down is not a failure
    const config = this.options.config();
    const failures = (this.options.status.get(sessionId)?.failures ?? 0) + 1;
    const delay = Math.min(config.retryMaxMs, config.retryBaseMs * 2 ** (failures - 1));
    const at = this.clock();
    const message = error instanceof Error ? error.message : String(error);
    try {
      this.options.status.recordFailure(sessionId, { error: message, at, nextAttemptAt: at + delay });
    } catch (statusError) {
      this.options.onError?.(statusError, sessionId);
    }
    this.options.onError?.(error, sessionId);
    this.scheduleRetry(sessionId, delay);
  }

  private scheduleRetry(sessionId: string, delay: number): void {
    if (this.closed || this.timers.has(sessionId)) return;
    const timer = setTimeout(() => {
      this.timers.delete(sessionId);
      this.maybeConsolidate(sessionId);
    }, delay);
    timer.unref();
    this.timers.set(sessionId, timer);
  }
}

function isFinalAnswer(stored: StoredMessage): boolean {
  return stored.message.role === 'assistant' && !stored.message.toolCalls?.length;
}

/** Heads the list of MEMORY.md edits held back in a HISTORY.md entry (memory_search treats it as untrusted). */
export const HELD_FACTS = 'Not saved to MEMORY.md';

/** A HISTORY.md entry that also lists the MEMORY.md edits held back because the chunk read untrusted content. */
function withHeldFacts(entry: string, add: string[], remove: string[]): string {
  if (add.length + remove.length === 0) return entry;
  const lines = [
    entry,
    '',
    `${HELD_FACTS} (this part of the conversation read untrusted content; add what is true by hand):`,
    ...add.map((fact) => `- would add: ${fact}`),
    ...remove.map((fact) => `- would remove: ${fact}`),
  ];
  return lines.join('\n');
}
