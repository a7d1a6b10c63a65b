import { estimateRequestTokens } from '../../llm/token-estimate.js';
import type { ModelRequest, ModelResult } from '../../llm/types.js';
import type { DreamConfig } from '../memory-config.js';
import { normalizeFact } from '../memory-file.js';
import { checkTidy, type TidyChanges } from '../tidy/check-tidy.js';
import type { FactAge } from '../tidy/fact-ages.js';
import { type FactLine, parseMemory } from '../tidy/fact-lines.js';
import { parseTidy, TidyModelError, tidyRequest } from '../tidy/tidy-request.js';
import { type DreamChunk, dreamChunks } from './dream-chunks.js';
import { checkMoves, type DreamMove, keepMoved } from './dream-moves.js';
import { isPastOneOff } from './one-off-facts.js';
import { spliceChunks, type TidiedChunk } from './splice-chunks.js';

/** What one pass decided, before anything is written. */
export interface DreamDecision {
  /** MEMORY.md as the pass would write it (the text it started from when no chunk changed). */
  text: string;
  changes: TidyChanges;
  moves: DreamMove[];
  /** Moves ignored and parts refused or failed while others went through, each with why (for the feed). */
  notes: string[];
  /** Why each refused part was refused, and why each failed part failed. */
  refusals: string[];
  failures: string[];
  /** Model calls made, tokens they used (input and output), and the pass's budget. */
  calls: number;
  tokens: number;
  budget: number;
  /** Chunks left for the next pass because the budget ran out. */
  deferred: number;
  /** Hashes of the chunks looked at whose answer should not be asked for again (refused or unchanged). */
  settled: string[];
}

export interface DreamPassOptions {
  /** MEMORY.md as read, its facts (parseMemory) and their ages (factAges). */
  text: string;
  facts: readonly FactLine[];
  ages: readonly FactAge[];
  /** The owner's date, `YYYY-MM-DD`. */
  today: string;
  dream: DreamConfig;
  tag: string;
  maxOutputTokens: number;
  /** Chunks looked at before and unchanged since (their hashes): not sent again. */
  settled: ReadonlySet<string>;
  /** Asks the model (one call per chunk). */
  ask: (request: ModelRequest) => Promise<ModelResult>;
}

type ChunkOutcome =
  | { kind: 'tidied'; tidied: TidiedChunk; moves: DreamMove[]; notes: string[] }
  | { kind: 'unchanged'; moves: DreamMove[]; notes: string[] }
  | { kind: 'refused'; reason: string }
  | { kind: 'failed'; reason: string };

const spent = (result: ModelResult, estimate: number) => {
  const used = result.usage.inputTokens + result.usage.outputTokens;
  return used > 0 ? used : estimate;
};

/**
 * One Dream pass over MEMORY.md: the facts in chunks of related lines (dreamChunks), one model call per
 * chunk while the token budget lasts, each answer held to checkTidy's rules (it may add nothing) plus:
 * a fact dropped as a past one-off must name only past dates, a move names an existing fact and one of
 * USER.md, AGENTS.md, SOUL.md and becomes a proposal (the fact stays), an answer that tries to write any
 * other file is refused whole. Writes nothing; the caller records and applies the decision.
 */
export async function dreamPass(options: DreamPassOptions): Promise<DreamDecision> {
  const decision: DreamDecision = {
    text: options.text,
    changes: { merged: [], removed: [] },
    moves: [],
    notes: [],
    refusals: [],
    failures: [],
    calls: 0,
    tokens: 0,
    budget: options.dream.budgetTokens,
    deferred: 0,
    settled: [],
  };
  const tidied: TidiedChunk[] = [];
  const structure = new Set(parseMemory(options.text).structure);
  let charged = 0;
  for (const chunk of dreamChunks(options.facts, options.dream.chunkTokens)) {
    if (options.settled.has(chunk.hash)) continue;
    const ages = chunk.indexes.map(
      (index) => options.ages[index] ?? { position: options.facts[index]!.position },
    );
    const request = tidyRequest({
      memory: chunk.text,
      facts: chunk.facts,
      ages,
      tag: options.tag,
      maxOutputTokens: options.maxOutputTokens,
      today: options.today,
    });
    const estimate = estimateRequestTokens(request) + Math.ceil(chunk.text.length / 3) + 256;
    if (charged + estimate > decision.budget) {
      decision.deferred++;
      continue;
    }
    const result = await options.ask(request);
    decision.calls++;
    decision.tokens += spent(result, estimate);
    // The budget counts a call at its estimate when the model reports less (or nothing): it is a bound.
    charged += Math.max(spent(result, estimate), estimate);
    const outcome = judgeChunk(chunk, ages, result, options.today, structure);
    if (outcome.kind === 'refused' || outcome.kind === 'failed') {
      (outcome.kind === 'refused' ? decision.refusals : decision.failures).push(outcome.reason);
      // The same text would get the same answer: a refused chunk is sent again only once it changed.
      if (outcome.kind === 'refused') decision.settled.push(chunk.hash);
      continue;
    }
    decision.moves.push(...outcome.moves);
    decision.notes.push(...outcome.notes.map((note) => `Dream ${note}.`));
    if (outcome.kind === 'unchanged') decision.settled.push(chunk.hash);
    else {
      tidied.push(outcome.tidied);
      decision.changes.merged.push(...outcome.tidied.changes.merged);
      decision.changes.removed.push(...outcome.tidied.changes.removed);
    }
  }
  if (tidied.length > 0) decision.text = spliceChunks(options.text, tidied);
  return decision;
}

/**
 * The answer without the file's own headings and notes: a model may send back the whole file it knows the
 * chunk from. A line that is not a list item and not in the file stays, and checkTidy refuses it.
 */
function withoutEcho(answer: string, structure: ReadonlySet<string>): string {
  return parseMemory(answer)
    .lines.filter((line) => line.fact || !structure.has(line.text.trim()))
    .map((line) => line.text)
    .join('\n');
}

/** One chunk's answer, judged. */
function judgeChunk(
  chunk: DreamChunk,
  ages: FactAge[],
  result: ModelResult,
  today: string,
  structure: ReadonlySet<string>,
): ChunkOutcome {
  let answer: ReturnType<typeof parseTidy>;
  try {
    answer = parseTidy(result);
  } catch (error) {
    if (!(error instanceof TidyModelError)) throw error;
    return { kind: 'failed', reason: error.message };
  }
  if (answer.forbidden) return { kind: 'refused', reason: answer.forbidden };
  const { moves, notes } = checkMoves(answer.moves, chunk.facts);
  const stale = new Set(
    answer.stale
      .filter((line) => isPastOneOff(line, today))
      .map((line) => normalizeFact(line))
      .filter((key) => chunk.facts.some((fact) => fact.key === key)),
  );
  const verdict = checkTidy({
    before: chunk.text,
    after: keepMoved(withoutEcho(answer.text, structure), moves),
    ages,
    replacedBy: answer.replacedBy,
    stale,
  });
  if (!verdict.ok) return { kind: 'refused', reason: verdict.reason };
  if (verdict.unchanged) return { kind: 'unchanged', moves, notes };
  return { kind: 'tidied', tidied: { chunk, changes: verdict.changes, kept: verdict.kept }, moves, notes };
}
