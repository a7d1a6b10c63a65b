/**
 * Token estimates for budgeting prompts. Counts use OpenAI's cl100k encoding, a fair proxy for other
 * providers' tokenizers (expect ±20 %); budget with a margin. All functions are synchronous and never throw.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ChatMessage, ModelRequest } from './types.js';

/** Fixed estimate per image part (a ~1 MP image costs 750–1,600 tokens depending on the provider). */
export const IMAGE_TOKENS = 1_000;
/** Role markers and separators each provider adds around a message. */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Strings longer than this are sampled instead of fully tokenized. */
export const EXACT_LIMIT_CHARS = 32_000;

const TOOL_CALL_OVERHEAD_TOKENS = 8;
const TOOL_DEFINITION_OVERHEAD_TOKENS = 8;
const REPLY_PRIMING_TOKENS = 3;
const SAMPLE_COUNT = 8;
const SAMPLE_CHARS = 2_048;

type CountTokens = (text: string) => number;
let countTokens: CountTokens | undefined;

type Encoding = {
  countTokens: (text: string, options: { disallowedSpecial: Set<string> }) => number;
  setMergeCacheSize(size: number): void;
};

/**
 * Words whose merges the encoder remembers. Its default (100,000) lets a gateway that reads months of varied
 * text keep ~10 MB of cached merges; the common words of a conversation fit in far fewer.
 */
const MERGE_CACHE_WORDS = 5_000;

/** The ranks file `npm run build` writes next to the built estimator (see scripts/build-ranks.mjs). */
const RANKS_FILE = new URL('./cl100k_base.ranks.json', import.meta.url);
/** gpt-tokenizer's encoder as the build bundles it, beside the ranks file (gpt-tokenizer is dev-only). */
const ENCODER_FILE = 'gpt-encoding.cjs';

/**
 * The cl100k encoding from a JSON ranks file and the encoder the build bundled beside it: about 20 MB less
 * resident memory than the package's own module, whose 1 MB array literal keeps its source and bytecode alive.
 * Throws when either file cannot be read.
 */
export function encodingFromRanksFile(file: URL | string): Encoding {
  const url = typeof file === 'string' ? pathToFileURL(file) : file;
  const { GptEncoding } = createRequire(import.meta.url)(fileURLToPath(new URL(ENCODER_FILE, url))) as {
    GptEncoding: { getEncodingApi(name: string, ranks: () => unknown[]): Encoding };
  };
  const ranks = JSON.parse(readFileSync(url, 'utf8')) as unknown[];
  return GptEncoding.getEncodingApi('cl100k_base', () => ranks);
}

/**
 * The cl100k encoder is loaded on first use (~80 ms) rather than at import, so commands that never estimate
 * tokens start fast; from the files the build wrote, else (running from source, where the dev dependencies
 * are installed) from gpt-tokenizer's module. o200k cost ~25 MB more for no gain in budgeting. Synchronous,
 * to keep the API sync.
 */
function encoder(): CountTokens {
  if (!countTokens) {
    let encoding: Encoding;
    try {
      encoding = encodingFromRanksFile(RANKS_FILE);
    } catch {
      encoding = createRequire(import.meta.url)('gpt-tokenizer/cjs/encoding/cl100k_base') as Encoding;
    }
    encoding.setMergeCacheSize(MERGE_CACHE_WORDS);
    // Treat `<|endoftext|>` and friends in user text as plain text instead of throwing.
    const options = { disallowedSpecial: new Set<string>() };
    countTokens = (text) => encoding.countTokens(text, options);
  }
  return countTokens;
}

/**
 * Tokens in `text`. Exact (cl100k) up to `EXACT_LIMIT_CHARS`; longer strings are estimated from evenly
 * spaced samples and extrapolated by length, so a 10 MB string costs about as much as a 16 kB one.
 */
export function estimateTokens(text: string): number {
  if (text.length === 0) return 0;
  const count = encoder();
  if (text.length <= EXACT_LIMIT_CHARS) return count(text);
  const stride = Math.floor((text.length - SAMPLE_CHARS) / (SAMPLE_COUNT - 1));
  let sampledTokens = 0;
  for (let i = 0; i < SAMPLE_COUNT; i++) {
    sampledTokens += count(text.slice(i * stride, i * stride + SAMPLE_CHARS));
  }
  return Math.ceil((sampledTokens / (SAMPLE_COUNT * SAMPLE_CHARS)) * text.length);
}

/** Tokens one message adds to a prompt: its text, images, tool calls (name + raw arguments) and overhead. */
export function estimateMessageTokens(message: ChatMessage): number {
  let tokens = MESSAGE_OVERHEAD_TOKENS;
  switch (message.role) {
    case 'user':
      if (typeof message.content === 'string') return tokens + estimateTokens(message.content);
      for (const part of message.content) {
        tokens += part.type === 'text' ? estimateTokens(part.text) : IMAGE_TOKENS;
      }
      return tokens;
    case 'assistant':
      tokens += estimateTokens(message.content);
      for (const call of message.toolCalls ?? []) {
        tokens += TOOL_CALL_OVERHEAD_TOKENS + estimateTokens(call.name) + estimateTokens(call.arguments);
      }
      return tokens;
    case 'tool':
      return (
        tokens +
        TOOL_CALL_OVERHEAD_TOKENS +
        estimateTokens(message.toolName) +
        estimateTokens(message.content)
      );
  }
}

/** Tokens of a whole request as sent: system blocks, messages, tool schemas, plus the reply priming. */
export function estimateRequestTokens(request: Pick<ModelRequest, 'system' | 'messages' | 'tools'>): number {
  let tokens = REPLY_PRIMING_TOKENS;
  for (const block of request.system) tokens += MESSAGE_OVERHEAD_TOKENS + estimateTokens(block.text);
  for (const message of request.messages) tokens += estimateMessageTokens(message);
  for (const tool of request.tools ?? []) {
    tokens +=
      TOOL_DEFINITION_OVERHEAD_TOKENS +
      estimateTokens(tool.name) +
      estimateTokens(tool.description) +
      estimateTokens(JSON.stringify(tool.parameters));
  }
  return tokens;
}
