import { createHash } from 'node:crypto';
import type { HistoryEntry } from './history-file.js';

/**
 * The most characters of one text that are embedded. The start of a message carries its gist; the cap keeps
 * every input under the smallest common limit of embedding models (8,191 tokens for OpenAI's, even for
 * text of one token per character) and a batch of 64 under a request's.
 */
export const EMBED_CHARS = 2_000;

/** What is embedded of `text`: whitespace collapsed, at most {@link EMBED_CHARS} characters. */
export function embeddingText(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, EMBED_CHARS);
}

/** The key a vector is stored and re-used under: SHA-256 (hex) of the embedded text. */
export function contentHash(embedded: string): string {
  return createHash('sha256').update(embedded).digest('hex');
}

/** What is embedded of a HISTORY.md entry (the background embedder and search must agree). */
export function historyText(entry: Pick<HistoryEntry, 'heading' | 'body'>): string {
  return embeddingText(`${entry.heading}\n${entry.body}`);
}
