import { join } from 'node:path';
import { type EmbedTexts, embedTexts } from '../llm/embed-texts.js';
import type { EndpointConfig } from '../llm/endpoint.js';
import type { VectorMessageHit } from '../store/embedding-repository.js';
import type { MessageHit as WordHit } from '../store/message-search-repository.js';
import type { Stores } from '../store/open-stores.js';
import type { EmbeddingStore } from '../store/ports.js';
import { createDeadline } from '../util/create-deadline.js';
import { contentHash, embeddingText, historyText } from './embedding-text.js';
import { formatStamp } from './format-time.js';
import { type HistoryEntry, parseHistoryEntries } from './history-file.js';
import { readSnapshot } from './markdown-file.js';
import {
  dayBounds,
  excerpt,
  inDays,
  type MemorySearcher,
  type MemorySearchQuery,
  type MemorySearchResult,
  type SearchMatch,
  searchHistory,
  searchMemory,
} from './memory-search.js';
import { fuseRanks } from './reciprocal-rank-fusion.js';

/** The longest a search waits for the embedding of its query before it answers by keywords alone. */
const QUERY_DEADLINE_MS = 10_000;

export interface HybridSearchOptions {
  /** Where past messages and their vectors are searched. */
  stores: Pick<Stores, 'embeddings' | 'messages'>;
  workspace: () => string;
  timezone?: () => string | undefined;
  /**
   * The embedding endpoint to search with, or undefined when vector search is off (no embedding model, or
   * sqlite-vec not loaded): then every search is exactly `searchMemory`.
   */
  endpoint: () => EndpointConfig | undefined;
  /** Results by meaning must be at least this similar to the query (cosine, -1…1). */
  minSimilarity: () => number;
  /** False while the endpoint is known to be failing: search by keywords at once instead of waiting. */
  available?: () => boolean;
  embed?: EmbedTexts;
  /** Told when the query could not be embedded (the search then answers by keywords). */
  onError?: (error: unknown) => void;
}

type HistoryHit = MemorySearchResult['history'][number];
type MessageHit = MemorySearchResult['messages'][number];

const matchOf = (ranks: Array<number | undefined>): SearchMatch =>
  ranks[0] !== undefined && ranks[1] !== undefined ? 'both' : ranks[0] !== undefined ? 'words' : 'meaning';

/** The start of a message found by meaning, in the shape of an FTS snippet (no brackets: no word matched). */
function openingOf(text: string, size = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > size ? `${flat.slice(0, size)}…` : flat;
}

/**
 * Memory search combining keywords (SQLite FTS5 over past messages, word matches over HISTORY.md) with
 * meaning (the query's embedding against stored vectors, sqlite-vec), each source fused by reciprocal rank
 * fusion (k = 60) and cut to the query's limit. Without an embedding endpoint in force, or when the query
 * cannot be embedded, it is `searchMemory` unchanged. Never rejects for endpoint failures.
 */
export function createHybridSearch(options: HybridSearchOptions): MemorySearcher {
  const repository = options.stores.embeddings;
  const embed = options.embed ?? embedTexts;
  const keywordsOnly = (query: MemorySearchQuery) => {
    const zone = options.timezone?.();
    return searchMemory(
      {
        messages: options.stores.messages,
        workspace: options.workspace(),
        ...(zone ? { timezone: zone } : {}),
      },
      query,
    );
  };
  return async (query, signal) => {
    const endpoint = options.endpoint();
    if (!endpoint || options.available?.() === false) return keywordsOnly(query);
    const text = embeddingText(query.text);
    if (!text) return keywordsOnly(query);
    const deadline = createDeadline(QUERY_DEADLINE_MS, signal);
    let vector: number[];
    try {
      vector = (await embed(endpoint, [text], deadline.signal)).vectors[0]!;
    } catch (error) {
      if (signal?.aborted) throw signal.reason ?? error;
      options.onError?.(error);
      return keywordsOnly(query);
    } finally {
      deadline.dispose();
    }
    return fuse(query, {
      options,
      repository,
      model: endpoint.model,
      vector,
      maxDistance: 1 - options.minSimilarity(),
    });
  };
}

interface FuseContext {
  options: HybridSearchOptions;
  repository: EmbeddingStore;
  model: string;
  vector: number[];
  maxDistance: number;
}

function fuse(query: MemorySearchQuery, context: FuseContext): MemorySearchResult {
  const { options } = context;
  const zone = options.timezone?.();
  const limit = query.limit ?? 8;
  // Each retriever offers more than the limit, so fusion has something to reorder.
  const candidates = Math.min(100, Math.max(20, limit * 3));
  const bounds = dayBounds(query, zone);
  const byWords = options.stores.messages.search({ text: query.text, limit: candidates, ...bounds });
  const byMeaning = context.repository.nearestMessages({
    model: context.model,
    vector: context.vector,
    limit: candidates,
    maxDistance: context.maxDistance,
    ...bounds,
  });
  const messages = fuseRanks<WordHit | VectorMessageHit>([byWords, byMeaning], {
    key: (hit) => `${hit.sessionId}#${hit.seq}`,
  })
    .slice(0, limit)
    .map(({ item, ranks }): MessageHit => {
      const { sessionId, seq, role, createdAt } = item;
      const snippet = 'snippet' in item ? item.snippet : openingOf(item.text);
      return {
        sessionId,
        seq,
        role,
        createdAt,
        snippet,
        when: formatStamp(createdAt, zone),
        match: matchOf(ranks),
      };
    });
  return { history: fuseHistory(query, { ...context, candidates }).slice(0, limit), messages };
}

function fuseHistory(query: MemorySearchQuery, context: FuseContext & { candidates: number }): HistoryHit[] {
  const { candidates } = context;
  const text = readSnapshot(join(context.options.workspace(), 'HISTORY.md')).text;
  const byWords = searchHistory(text, { ...query, limit: candidates });
  const entries = parseHistoryEntries(text).filter((entry) => inDays(entry, query));
  const hashes = entries.map((entry) => contentHash(historyText(entry)));
  const distances = context.repository.distances({ model: context.model, vector: context.vector, hashes });
  const byMeaning = entries
    .map((entry, index) => ({ entry, distance: distances.get(hashes[index]!) }))
    .filter((found): found is { entry: HistoryEntry; distance: number } => found.distance !== undefined)
    .filter((found) => found.distance <= context.maxDistance)
    .sort((a, b) => a.distance - b.distance)
    .slice(0, candidates)
    .map(({ entry }): HistoryHit => ({ ...entry, score: 0, excerpt: excerpt(entry.body, []) }));
  return fuseRanks([byWords, byMeaning], { key: (entry) => `${entry.heading}\n${entry.body}` }).map(
    ({ item, ranks }) => ({ ...item, match: matchOf(ranks) }),
  );
}
