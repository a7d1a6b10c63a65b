import { describe, expect, it } from 'vitest';
import { googleErrorDetails } from './google-error-details.js';

const body = (details: unknown, wrap = false) => {
  const error = { error: { code: 429, message: 'Quota exceeded.', status: 'RESOURCE_EXHAUSTED', details } };
  return JSON.stringify(wrap ? [error] : error);
};
const retryInfo = (retryDelay: unknown) => ({
  '@type': 'type.googleapis.com/google.rpc.RetryInfo',
  retryDelay,
});

describe('googleErrorDetails', () => {
  it('reads RetryInfo.retryDelay in whole and fractional seconds, rounded up to milliseconds', () => {
    expect(googleErrorDetails(body([retryInfo('7s')])).retryDelayMs).toBe(7_000);
    expect(googleErrorDetails(body([retryInfo('0.5s')])).retryDelayMs).toBe(500);
    expect(googleErrorDetails(body([retryInfo('45.837906927s')])).retryDelayMs).toBe(45_838);
    expect(googleErrorDetails(body([retryInfo('0s')])).retryDelayMs).toBe(0);
  });

  it('finds RetryInfo among other details and in the array a JSON-array stream sends', () => {
    const quota = { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [] };
    expect(googleErrorDetails(body([quota, retryInfo('12s')], true))).toEqual({
      retryDelayMs: 12_000,
      reasons: [],
    });
  });

  it('collects ErrorInfo reasons', () => {
    const info = { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' };
    expect(googleErrorDetails(body([info])).reasons).toEqual(['API_KEY_INVALID']);
  });

  it.each([
    ['not JSON', 'upstream connect error'],
    ['JSON without details', '{"error":{"message":"x"}}'],
    ['details that are not a list', body({ retryDelay: '7s' })],
    ['a delay that is not a Duration', body([retryInfo('7 seconds'), retryInfo(7), retryInfo('-1s')])],
    ['an OpenAI error', '{"error":{"message":"Rate limit","type":"requests","code":"rate_limit_exceeded"}}'],
    ['null', 'null'],
  ])('gives nothing for %s', (_, text) => {
    expect(googleErrorDetails(text)).toEqual({ reasons: [] });
  });
});
