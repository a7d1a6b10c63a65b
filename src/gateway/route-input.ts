import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { z } from 'zod';
import { problem } from './problem.js';

/** The default cap on a JSON request body of the owner-data routes (memos, tasks, reminders, push). */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

/** A validated body, or the answer to send instead. */
export type ValidBody<T> = { ok: true; value: T } | { ok: false; response: Response };

/**
 * Middleware refusing a body over `maxBytes` with `413 too_large` before it is read whole (by its
 * content-length, or while it streams in when there is none).
 */
export function limitBody(maxBytes = MAX_JSON_BODY_BYTES): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: (c) =>
      c.json(problem('too_large', `The request body is larger than ${maxBytes} bytes; send less.`), 413),
  });
}

/**
 * The JSON body validated by `schema`, or the 400 answer saying what is wrong: "The body must be a JSON
 * object." for anything that is not JSON, else the first issue as `path: message` (keys and rules, never
 * the value sent).
 */
export async function validBody<T>(c: Context, schema: z.ZodType<T>): Promise<ValidBody<T>> {
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    return { ok: false, response: c.json(problem('bad_request', 'The body must be a JSON object.'), 400) };
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
  return { ok: false, response: c.json(problem('bad_request', `${where}${issue.message}`), 400) };
}

/** A path parameter as an id, or undefined when it is not a positive whole number (`1e3`, `-1`, `abc`). */
export function positiveId(c: Context, name = 'id'): number | undefined {
  const text = c.req.param(name) ?? '';
  return /^\d{1,15}$/.test(text) && Number(text) > 0 ? Number(text) : undefined;
}

/** The 400 answer for an id that is not one. */
export function badId(c: Context, kind: string): Response {
  return c.json(problem('bad_request', `The ${kind} id must be a positive whole number.`), 400);
}

/**
 * A query parameter as a whole number in [min, max]: undefined when absent, `'bad'` when present but not
 * one (the caller answers 400 naming the parameter).
 */
export function wholeQuery(c: Context, name: string, min: number, max: number): number | undefined | 'bad' {
  const text = c.req.query(name);
  if (text === undefined) return undefined;
  if (!/^\d{1,15}$/.test(text)) return 'bad';
  const value = Number(text);
  return value >= min && value <= max ? value : 'bad';
}
