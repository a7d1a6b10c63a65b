import type { Memo } from '../store/memo-repository.js';
import type { Stores } from '../store/open-stores.js';
import type { ServiceContext } from './service-context.js';
import { invalid, notFound, type ServiceFailure, tooLarge } from './service-failure.js';

export type { Memo, ServiceFailure };
export type MemoResult = { ok: true; memo: Memo } | ServiceFailure;

/** Longest memo text kept, tags included, on every face (a memo is a note, not a document). */
export const MAX_MEMO_CHARS = 100_000;
/** Most tags one request may add. */
export const MAX_MEMO_TAGS = 20;

/** A tag: one word of letters, digits, `_` or `-` (it becomes `#word` in the text). */
const TAG = /^[\p{L}\p{N}_-]{1,40}$/u;
const HASHTAG = /(?:^|\s)#([\p{L}\p{N}_-]{1,40})(?=$|[\s.,;:!?)])/gu;

/** The `#tags` written in a memo's text, in order, each once (case-insensitively). */
export function tagsOf(body: string): string[] {
  const seen = new Set<string>();
  const found: string[] = [];
  for (const match of body.matchAll(HASHTAG)) {
    const tag = match[1]!;
    if (seen.has(tag.toLowerCase())) continue;
    seen.add(tag.toLowerCase());
    found.push(tag);
  }
  return found;
}

/**
 * `body` with each of `tags` it does not carry yet appended as `#tag`. Memos have no tag column: a tag is a
 * `#word` in the text, which full-text search finds like any other word and which `tagsOf` reads back.
 */
export function withTags(body: string, wanted: readonly string[]): string {
  const present = new Set(tagsOf(body).map((tag) => tag.toLowerCase()));
  const missing: string[] = [];
  for (const tag of wanted) {
    if (present.has(tag.toLowerCase())) continue;
    present.add(tag.toLowerCase());
    missing.push(`#${tag}`);
  }
  const trimmed = body.trim();
  return missing.length ? `${trimmed}${trimmed ? ' ' : ''}${missing.join(' ')}` : trimmed;
}

export interface MemoInput {
  text: string;
  /** Added to the text as `#tag` (see `withTags`). */
  tags?: readonly string[];
}

export interface MemoChanges {
  /** Replaces the text. */
  text?: string;
  /** Added to the (new or current) text. */
  tags?: readonly string[];
}

/** The owner's memos: the one implementation the `memo` tool, `wren memo` and `/api/memos` share. */
export interface MemoService {
  /** Saves a memo (trimmed, tags appended). Never throws for bad input: says what to fix. */
  add(input: MemoInput): MemoResult;
  get(id: number): Memo | undefined;
  /** Newest first. */
  list(limit?: number, offset?: number): Memo[];
  count(): number;
  /** Best match first; [] for a query without searchable words. */
  search(query: string, limit?: number): Memo[];
  /** Checks every change, then writes; a change that leaves the text as it is writes nothing. */
  update(id: number, changes: MemoChanges): MemoResult;
  delete(id: number): { ok: true } | ServiceFailure;
}

const missing = (id: number) => notFound(`There is no memo #${id}.`);

function checkText(text: string): ServiceFailure | undefined {
  if (text.trim() === '') return invalid('A memo needs some text.', 'text');
  if (text.length > MAX_MEMO_CHARS)
    return invalid(`The memo is ${text.length} characters; keep it to at most ${MAX_MEMO_CHARS}.`, 'text');
  return undefined;
}

function checkTags(tags: readonly string[]): ServiceFailure | undefined {
  if (tags.length > MAX_MEMO_TAGS) return invalid(`At most ${MAX_MEMO_TAGS} tags at a time.`, 'tags');
  const bad = tags.find((tag) => !TAG.test(tag));
  return bad === undefined
    ? undefined
    : invalid(`"${bad}" is not a tag: each tag is 1-40 letters, digits, _ or -.`, 'tags');
}

/** The text to store, or why not: too long once its tags are appended. */
function body(text: string, tags: readonly string[]): { ok: true; body: string } | ServiceFailure {
  const result = withTags(text, tags);
  return result.length > MAX_MEMO_CHARS
    ? tooLarge(`The memo with its tags is over ${MAX_MEMO_CHARS} characters.`)
    : { ok: true, body: result };
}

/** The memo service over the home's memo store (times are the store's; no context needed). */
export function createMemoService(stores: Pick<Stores, 'memos'>, _context?: ServiceContext): MemoService {
  const memos = stores.memos;
  return {
    add(input) {
      const refused = checkText(input.text) ?? checkTags(input.tags ?? []);
      if (refused) return refused;
      const stored = body(input.text, input.tags ?? []);
      return stored.ok ? { ok: true, memo: memos.add(stored.body) } : stored;
    },
    get: (id) => memos.get(id),
    list: (limit, offset) => memos.list(limit, offset),
    count: () => memos.count(),
    search: (query, limit) => memos.search(query, limit),
    update(id, changes) {
      const refused =
        (changes.text === undefined ? undefined : checkText(changes.text)) ?? checkTags(changes.tags ?? []);
      if (refused) return refused;
      const current = memos.get(id);
      if (!current) return missing(id);
      const stored = body(changes.text ?? current.text, changes.tags ?? []);
      if (!stored.ok) return stored;
      if (stored.body === current.text) return { ok: true, memo: current };
      const memo = memos.update(id, stored.body);
      // Deleted meanwhile (another process).
      return memo ? { ok: true, memo } : missing(id);
    },
    delete: (id) => (memos.delete(id) ? { ok: true } : missing(id)),
  };
}
