import { z } from 'zod';
import type { ImagePart } from '../llm/types.js';
import { MAX_IMAGE_BASE64_CHARS, MAX_IMAGES, MAX_MESSAGE_CHARS, SESSION_ID } from './chat-routes.js';

/** The one model this endpoint serves: Wren itself. */
export const WREN_MODEL = 'wren';

/** The conversation used when a request names none (no `X-Wren-Session` header, no `user`). */
export const DEFAULT_OPENAI_SESSION = 'openai';

/**
 * The parts of an OpenAI chat completions body Wren reads. Everything else a client sends (`temperature`,
 * `tools`, `max_tokens` …) is accepted and ignored: Wren chooses its own models, tools and limits.
 */
const requestSchema = z.looseObject({
  model: z.string({ error: 'model is required (use "wren")' }),
  messages: z
    .array(
      z.looseObject({
        role: z.string(),
        content: z.union([z.string(), z.array(z.looseObject({ type: z.string() })), z.null()]).optional(),
      }),
    )
    .min(1, 'messages must hold at least one message'),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  user: z.string().nullish(),
  n: z.literal(1, 'Wren answers with one choice; leave n out or set it to 1').nullish(),
});

/** A request Wren can answer: one owner turn in `session`. */
export interface ChatCompletionTurn {
  session: string;
  text: string;
  images: ImagePart[];
  stream: boolean;
  includeUsage: boolean;
}

/** Why a request cannot be answered, as the HTTP status and OpenAI error fields to send. */
export interface ChatCompletionProblem {
  status: 400 | 404 | 413;
  code: string;
  message: string;
  param?: string;
}

const DATA_URL = /^data:(image\/(?:png|jpeg|gif|webp));base64,([A-Za-z0-9+/]+=*)$/i;

function bad(message: string, param?: string): ChatCompletionProblem {
  return { status: 400, code: 'invalid_request_error', message, ...(param ? { param } : {}) };
}

/**
 * Reads a chat completions body into one turn. Wren keeps each conversation's history itself, so only the
 * last message — which must be the user's — is the turn's input (its text parts, and `image_url` parts
 * carrying data: URLs as images); earlier messages are not read. The session is the `X-Wren-Session` header,
 * else `user`, else {@link DEFAULT_OPENAI_SESSION}; both are checked like `POST /api/chat`'s `session`.
 */
export function readChatCompletionRequest(
  raw: unknown,
  sessionHeader: string | undefined,
): { turn: ChatCompletionTurn } | { problem: ChatCompletionProblem } {
  const parsed = requestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const param = issue?.path.join('.') || undefined;
    return { problem: bad(`${param ?? 'body'}: ${issue?.message ?? 'invalid'}`, param) };
  }
  const body = parsed.data;
  if (body.model !== WREN_MODEL) {
    return {
      problem: {
        status: 404,
        code: 'model_not_found',
        message: `The model "${body.model}" does not exist here: this endpoint serves one model, "${WREN_MODEL}".`,
        param: 'model',
      },
    };
  }
  const session = sessionHeader ?? body.user ?? DEFAULT_OPENAI_SESSION;
  if (!SESSION_ID.test(session)) {
    const where = sessionHeader !== undefined ? 'the X-Wren-Session header' : 'user';
    return {
      problem: bad(
        `${where} names the conversation: use 1-128 letters, digits, _ . : - (starting with a letter or digit).`,
        sessionHeader !== undefined ? undefined : 'user',
      ),
    };
  }
  const last = body.messages.at(-1)!;
  const index = body.messages.length - 1;
  if (last.role !== 'user') {
    return {
      problem: bad(
        `messages.${index}: the last message must be the user's (Wren keeps the conversation's history itself and answers the newest user message); got role "${last.role}".`,
        `messages.${index}.role`,
      ),
    };
  }
  const content = readContent(last.content, `messages.${index}.content`);
  if ('problem' in content) return content;
  return {
    turn: {
      session,
      ...content,
      stream: body.stream === true,
      includeUsage: body.stream_options?.include_usage === true,
    },
  };
}

function readContent(
  content: string | Array<{ type: string; [key: string]: unknown }> | null | undefined,
  where: string,
): { text: string; images: ImagePart[] } | { problem: ChatCompletionProblem } {
  const texts: string[] = [];
  const images: ImagePart[] = [];
  const parts = typeof content === 'string' ? [{ type: 'text', text: content }] : (content ?? []);
  for (const [index, part] of parts.entries()) {
    const at = `${where}.${index}`;
    if (part.type === 'text') {
      if (typeof part['text'] !== 'string') return { problem: bad(`${at}.text must be a string.`, at) };
      texts.push(part['text']);
    } else if (part.type === 'image_url') {
      const image = readImage(part['image_url'], at);
      if ('problem' in image) return image;
      images.push(image);
    } else {
      return {
        problem: bad(
          `${at}: parts of type "${part.type}" are not supported; send text and image_url parts.`,
          at,
        ),
      };
    }
  }
  const text = texts.join('\n');
  if (text.trim() === '' && images.length === 0) {
    return { problem: bad(`${where}: the user message is empty.`, where) };
  }
  if (text.length > MAX_MESSAGE_CHARS) {
    return {
      problem: {
        status: 413,
        code: 'too_large',
        message: `${where}: the message is longer than ${MAX_MESSAGE_CHARS.toLocaleString('en')} characters.`,
        param: where,
      },
    };
  }
  if (images.length > MAX_IMAGES) {
    return { problem: bad(`${where}: at most ${MAX_IMAGES} images per message.`, where) };
  }
  return { text, images };
}

function readImage(value: unknown, at: string): ImagePart | { problem: ChatCompletionProblem } {
  const url = typeof value === 'string' ? value : (value as { url?: unknown } | null)?.url;
  if (typeof url !== 'string') return { problem: bad(`${at}.image_url.url must be a string.`, at) };
  const match = DATA_URL.exec(url);
  if (!match) {
    return {
      problem: bad(
        `${at}: send images as data: URLs (data:image/png;base64,…; png, jpeg, gif or webp); Wren does not fetch image links.`,
        at,
      ),
    };
  }
  if (match[2]!.length > MAX_IMAGE_BASE64_CHARS) {
    return {
      problem: {
        status: 413,
        code: 'too_large',
        message: `${at}: the image is larger than ${MAX_IMAGE_BASE64_CHARS.toLocaleString('en')} base64 characters.`,
        param: at,
      },
    };
  }
  return { type: 'image', data: match[2]!, mediaType: match[1]!.toLowerCase() };
}
