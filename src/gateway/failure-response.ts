import type { Context } from 'hono';
import type { ServiceFailure } from '../services/service-failure.js';
import { problem } from './problem.js';

const ANSWER = {
  invalid: { status: 400, code: 'bad_request' },
  not_found: { status: 404, code: 'not_found' },
  too_large: { status: 413, code: 'too_large' },
  refused: { status: 403, code: 'forbidden' },
} as const;

/** The HTTP answer to a service's refusal: 400 bad_request, 404 not_found, 413 too_large or 403 forbidden. */
export function failureResponse(c: Context, failure: ServiceFailure): Response {
  const answer = ANSWER[failure.code];
  const where = failure.field ? `${failure.field}: ` : '';
  return c.json(problem(answer.code, `${where}${failure.error}`), answer.status);
}
