import { APICallError } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import type { EndpointConfig } from './endpoint.js';
import {
  endpointSecrets,
  failureAction,
  httpError,
  NetworkError,
  networkError,
  ProviderError,
  parseRetryAfter,
  redactSecrets,
  toEndpointError,
} from './provider-error.js';

const NOW = Date.UTC(2030, 5, 1, 12, 0, 0);

const endpoint: EndpointConfig = {
  name: 'main',
  protocol: 'openai',
  baseUrl: 'https://api.openai.com/v1',
  apiKey: 'sk-secret-123456',
  model: 'gpt-test',
  tags: ['default'],
  priority: 0,
  contextWindow: 128_000,
  maxOutputTokens: 4_096,
  enabled: true,
  timeoutMs: 60_000,
  vision: false,
  headers: { Authorization: 'Bearer other-token-999', 'X-Title': 'Wren' },
};

const GEMINI: EndpointConfig = {
  ...endpoint,
  protocol: 'gemini',
  baseUrl: 'https://generativelanguage.googleapis.com/v1beta',
};

function apiCallError(
  statusCode: number | undefined,
  body = '',
  headers: Record<string, string> = {},
  cause?: unknown,
) {
  return new APICallError({
    message: 'call failed',
    url: 'https://api.openai.com/v1/chat/completions',
    requestBodyValues: {},
    statusCode,
    responseHeaders: headers,
    responseBody: body,
    cause,
  });
}

describe('parseRetryAfter', () => {
  it('reads seconds, fractional seconds, HTTP dates and retry-after-ms', () => {
    expect(parseRetryAfter({ 'retry-after': '7' }, NOW)).toBe(7_000);
    expect(parseRetryAfter({ 'Retry-After': '1.5' }, NOW)).toBe(1_500);
    expect(parseRetryAfter({ 'retry-after': new Date(NOW + 42_000).toUTCString() }, NOW)).toBe(42_000);
    expect(parseRetryAfter({ 'retry-after': new Date(NOW - 5_000).toUTCString() }, NOW)).toBe(0);
    expect(parseRetryAfter({ 'retry-after-ms': '250', 'retry-after': '9' }, NOW)).toBe(250);
  });

  it('returns undefined when absent or unparseable', () => {
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfter({}, NOW)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': 'soon' }, NOW)).toBeUndefined();
  });
});

describe('redaction', () => {
  it('collects the api key and auth-like header values, never harmless headers', () => {
    const secrets = endpointSecrets(endpoint);
    expect(secrets).toEqual(
      expect.arrayContaining(['sk-secret-123456', 'Bearer other-token-999', 'other-token-999']),
    );
    expect(secrets).not.toContain('Wren');
  });

  it('replaces every occurrence and URL credentials', () => {
    const text = 'key sk-secret-123456 again sk-secret-123456 at https://user:pw@host/v1';
    expect(redactSecrets(text, ['sk-secret-123456'])).toBe(
      'key [redacted] again [redacted] at https://[redacted]@host/v1',
    );
  });
});

describe('toEndpointError', () => {
  it('maps a 429 with Retry-After to a rate-limit ProviderError', () => {
    const error = toEndpointError(
      apiCallError(429, '{"error":{"message":"Rate limit reached","type":"tokens"}}', { 'retry-after': '3' }),
      endpoint,
      NOW,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 429, retryAfterMs: 3_000, retryAfter: '3', endpoint: 'main' });
    expect((error as ProviderError).isRateLimit).toBe(true);
    expect((error as ProviderError).bodyExcerpt).toBe('tokens: Rate limit reached');
    expect(failureAction(error)).toBe('cooldown');
  });

  it('resolves an HTTP-date Retry-After against the caller clock', () => {
    const date = new Date(NOW + 90_000).toUTCString();
    const error = httpError(endpoint, 429, '', { 'Retry-After': date }, NOW - 10_000);
    expect(error.retryDelayMs(NOW)).toBe(90_000);
  });

  it("takes a Gemini 429's wait from RetryInfo, and a Retry-After header before it", () => {
    const body = JSON.stringify({
      error: {
        code: 429,
        message: 'You exceeded your current quota.',
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '21.2s' }],
      },
    });
    const error = toEndpointError(apiCallError(429, body), GEMINI, NOW) as ProviderError;
    expect(error).toMatchObject({ status: 429, retryAfterMs: 21_200, retryAfter: undefined });
    expect(error.retryDelayMs(NOW + 5_000)).toBe(21_200);
    expect(error.bodyExcerpt).toBe('RESOURCE_EXHAUSTED: You exceeded your current quota.');
    expect(error.message).toContain('The provider asks to wait 22 s.');
    expect(failureAction(error)).toBe('cooldown');
    const both = toEndpointError(apiCallError(429, body, { 'retry-after': '3' }), GEMINI, NOW);
    expect(both).toMatchObject({ retryAfterMs: 3_000 });
  });

  it("treats Gemini's 400 API_KEY_INVALID as a rejected key and names GEMINI_API_KEY", () => {
    const body = JSON.stringify({
      error: {
        code: 400,
        message: 'API key not valid. Please pass a valid API key.',
        status: 'INVALID_ARGUMENT',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' }],
      },
    });
    const error = toEndpointError(apiCallError(400, body), GEMINI, NOW);
    expect(error.message).toContain('rejected the API key (HTTP 400)');
    expect(error.message).toContain('(usually GEMINI_API_KEY)');
    expect(failureAction(error)).toBe('fatal');
    const other = toEndpointError(apiCallError(400, body.replace('API_KEY_INVALID', 'OTHER')), GEMINI, NOW);
    expect(other.message).toContain('refused the request (HTTP 400)');
  });

  it('names the env var to check on 401 and never shows the key the server echoed', () => {
    const body = '{"error":{"message":"Incorrect API key provided: sk-secret-123456"}}';
    const error = toEndpointError(apiCallError(401, body), endpoint, NOW);
    expect(error.message).toContain('OPENAI_API_KEY');
    expect(error.message).toContain('endpoint "main"');
    expect(error.message).not.toContain('sk-secret-123456');
    expect(failureAction(error)).toBe('fatal');
  });

  it('advises on model and base_url for 404', () => {
    const error = toEndpointError(apiCallError(404, 'model not found'), endpoint, NOW);
    expect(error.message).toContain('Check the model name and base_url');
  });

  it('classifies 5xx and 408 as retryable, 529 and overloaded bodies as rate limits', () => {
    expect(failureAction(toEndpointError(apiCallError(503), endpoint))).toBe('retry');
    expect(failureAction(toEndpointError(apiCallError(408), endpoint))).toBe('retry');
    expect(failureAction(toEndpointError(apiCallError(529), endpoint))).toBe('cooldown');
    expect(
      failureAction(toEndpointError(apiCallError(500, '{"error":{"message":"Overloaded"}}'), endpoint)),
    ).toBe('cooldown');
  });

  it('maps in-stream error events by their type', () => {
    const overloaded = toEndpointError({ type: 'overloaded_error', message: 'Overloaded' }, endpoint);
    expect(overloaded).toMatchObject({ status: 529 });
    expect(toEndpointError({ type: 'rate_limit_error', message: 'slow' }, endpoint)).toMatchObject({
      status: 429,
    });
    expect(toEndpointError({ type: 'api_error', message: 'boom' }, endpoint)).toMatchObject({ status: 500 });
  });

  it('maps connection failures by the code in the cause chain', () => {
    const refused = toEndpointError(
      apiCallError(undefined, '', {}, Object.assign(new Error('x'), { code: 'ECONNREFUSED' })),
      endpoint,
    );
    expect(refused).toBeInstanceOf(NetworkError);
    expect((refused as NetworkError).reason).toBe('refused');
    const dns = toEndpointError(new TypeError('fetch failed', { cause: { code: 'ENOTFOUND' } }), endpoint);
    expect((dns as NetworkError).reason).toBe('dns');
    const dropped = toEndpointError(apiCallError(200, '', {}, new TypeError('terminated')), endpoint);
    expect((dropped as NetworkError).reason).toBe('reset');
    expect(failureAction(dropped)).toBe('retry');
  });

  it('treats anything else as an unusable response, redacted', () => {
    const error = toEndpointError(new Error('Unexpected token in sk-secret-123456'), endpoint);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 0 });
    expect(error.message).not.toContain('sk-secret-123456');
    expect(failureAction(error)).toBe('fatal');
  });

  it('passes our own errors through, redacting them if needed', () => {
    const own = networkError(endpoint, 'timeout');
    expect(toEndpointError(own, endpoint)).toBe(own);
    expect(own.message).toContain('60 s');
    const leaky = new ProviderError({ message: 'bad sk-secret-123456', status: 400, endpoint: 'main' });
    expect(toEndpointError(leaky, endpoint).message).toBe('bad [redacted]');
  });
});
