import * as z from 'zod';
import { validateCron } from '../util/schedule.js';

/** Turns `"42"` (typically the result of `${VAR}`) into 42; other values pass through. */
function fromString(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : value;
}

const integer = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess(fromString, z.number().int().min(min).max(max));

/**
 * The `memory:` section of config.yaml (snake_case, strict, every key defaulted):
 *
 * ```yaml
 * memory:
 *   consolidate_at: 0.5          # consolidate when live history passes this share of the history budget
 *   model_tag: small             # endpoints tagged so do the consolidation (all endpoints when none is)
 *   memory_prompt_chars: 6000    # MEMORY.md characters put in the prompt (then a truncation note)
 *   memory_file_chars: 12000     # size MEMORY.md is kept under by consolidation
 *   summary_chars: 2000          # session summary cap
 *   open_tasks_in_prompt: 15     # open tasks listed in the prompt
 *   retry_base_seconds: 30       # first retry of a failed consolidation; doubles up to retry_max_seconds
 *   retry_max_seconds: 3600
 *   new_session_wait_seconds: 60 # /new waits this long for the old session's consolidation
 *   search_min_similarity: 0.2   # with an embedding model: results by meaning at least this similar (cosine)
 *   dream:                       # the nightly memory pass (merge, resolve, propose moves, drop stale one-offs)
 *     every: "0 3 * * *"         # cron, read in agent.timezone; "off" turns it off (on only with a model)
 *     idle_minutes: 30           # waits until the owner has not chatted for this long
 *     budget_tokens: 24000       # model tokens one pass may use at most (the feed entry shows what it used)
 *     chunk_tokens: 3000         # MEMORY.md tokens per model call
 *   tidy: { every: ... }         # the older name of dream.every (still read when dream.every is not set)
 * ```
 */
export const memorySectionSchema = z.strictObject({
  consolidate_at: z.preprocess(fromString, z.number().gt(0).max(1)).default(0.5),
  model_tag: z.string().trim().min(1).default('small'),
  memory_prompt_chars: integer(200).default(6000),
  memory_file_chars: integer(500).default(12000),
  summary_chars: integer(200).default(2000),
  open_tasks_in_prompt: integer(0, 200).default(15),
  retry_base_seconds: integer(1).default(30),
  retry_max_seconds: integer(1).default(3600),
  new_session_wait_seconds: integer(0).default(60),
  search_min_similarity: z.preprocess(fromString, z.number().min(-1).max(1)).default(0.2),
  tidy: z.strictObject({ every: z.string().trim().min(1).superRefine(checkTidySchedule) }).optional(),
  dream: z
    .strictObject({
      every: z
        .string()
        .trim()
        .min(1)
        .superRefine((text, context) => {
          if (text !== 'off') checkTidySchedule(text, context);
        })
        .optional(),
      idle_minutes: integer(0, 24 * 60).default(30),
      budget_tokens: integer(1000).default(24_000),
      chunk_tokens: integer(200).default(3000),
    })
    .default({ idle_minutes: 30, budget_tokens: 24_000, chunk_tokens: 3000 }),
});

/** When Dream runs unless config.yaml says otherwise: 03:00 every day, in the owner's zone. */
export const DEFAULT_DREAM_EVERY = '0 3 * * *';

/** Five cron fields or an `@` nickname that croner accepts (the zone does not change what is valid). */
function checkTidySchedule(text: string, context: z.RefinementCtx): void {
  const fields = text.split(/\s+/).length;
  const problem =
    !text.startsWith('@') && fields !== 5
      ? `has ${fields} field${fields === 1 ? '' : 's'}, not 5`
      : validateCron(text, 'UTC');
  if (problem) {
    context.addIssue({
      code: 'custom',
      message: `"${text}" is not a usable schedule (${problem}); use 5 cron fields "minute hour day-of-month month day-of-week", e.g. "0 3 * * *" (03:00 every day) or "0 4 * * 0" (04:00 on Sundays)`,
    });
  }
}

export type MemorySection = z.output<typeof memorySectionSchema>;

/** The memory settings as the code uses them (camelCase, milliseconds). */
export interface MemoryConfig {
  /** Share (0–1] of the history budget at which consolidation starts. */
  readonly consolidateAt: number;
  readonly modelTag: string;
  readonly memoryPromptChars: number;
  readonly memoryFileChars: number;
  readonly summaryChars: number;
  readonly openTasksInPrompt: number;
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  readonly newSessionWaitMs: number;
  /** Cosine similarity a result found by meaning needs at least (semantic memory search). */
  readonly searchMinSimilarity: number;
  /** Dream, the memory pass (see MemoryTidy). */
  readonly dream: DreamConfig;
}

export interface DreamConfig {
  /** Its schedule (a cron read in the owner's zone); absent: Dream is off (`every: off`). */
  readonly every?: string;
  /** Minutes without a turn of the owner's before a due pass starts. */
  readonly idleMs: number;
  /** Model tokens (input and output) one pass may use at most. */
  readonly budgetTokens: number;
  /** MEMORY.md tokens sent per model call. */
  readonly chunkTokens: number;
}

/** The defaults (an empty `memory:` section). */
export const DEFAULT_MEMORY_CONFIG: MemoryConfig = toMemoryConfig(memorySectionSchema.parse({}));

/** Pure: the parsed section in camelCase; `retry_max_seconds` is raised to at least `retry_base_seconds`. */
export function toMemoryConfig(parsed: MemorySection): MemoryConfig {
  return Object.freeze({
    consolidateAt: parsed.consolidate_at,
    modelTag: parsed.model_tag,
    memoryPromptChars: parsed.memory_prompt_chars,
    memoryFileChars: parsed.memory_file_chars,
    summaryChars: parsed.summary_chars,
    openTasksInPrompt: parsed.open_tasks_in_prompt,
    retryBaseMs: parsed.retry_base_seconds * 1000,
    retryMaxMs: Math.max(parsed.retry_base_seconds, parsed.retry_max_seconds) * 1000,
    newSessionWaitMs: parsed.new_session_wait_seconds * 1000,
    searchMinSimilarity: parsed.search_min_similarity,
    dream: toDreamConfig(parsed),
  });
}

function toDreamConfig(parsed: MemorySection): DreamConfig {
  const every = parsed.dream.every ?? parsed.tidy?.every ?? DEFAULT_DREAM_EVERY;
  return Object.freeze({
    ...(every !== 'off' ? { every } : {}),
    idleMs: parsed.dream.idle_minutes * 60_000,
    budgetTokens: parsed.dream.budget_tokens,
    chunkTokens: parsed.dream.chunk_tokens,
  });
}
