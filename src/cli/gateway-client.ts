import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { type GatewayRecord, readGatewayRecord } from '../gateway/gateway-file.js';

/** A verified way to this home's running gateway. */
export interface GatewayLink {
  url: string;
  /** The run's local token (from `gateway.json`): local commands need no token of the owner's. */
  token: string;
  pid: number;
  version: string;
}

/** What `findGateway` found. */
export type GatewayLookup =
  | { state: 'running'; link: GatewayLink }
  /** No `gateway.json`, or its process is gone: no gateway runs for this home. */
  | { state: 'none' }
  /** The recorded process lives, but what answers at its URL is not it (or does not answer). */
  | { state: 'unverified'; url: string; pid: number; reason: string };

const HEALTH_TIMEOUT_MS = 2000;

/**
 * Finds the gateway of `home` from its `gateway.json` and proves that the process answering at the recorded
 * URL is that gateway — `GET /api/health?challenge=<nonce>` must answer `HMAC(secret, nonce)` — before any
 * token is sent. Whatever else listens on the port (another home's Wren, another program) is never given
 * the token. Never throws.
 */
export async function findGateway(home: string): Promise<GatewayLookup> {
  const record = readGatewayRecord(home);
  if (!record) return { state: 'none' };
  const nonce = randomBytes(16).toString('hex');
  let proof: unknown;
  try {
    const response = await fetch(`${record.url}/api/health?challenge=${nonce}`, {
      signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS),
    });
    proof = ((await response.json()) as { proof?: unknown }).proof;
  } catch (error) {
    const reason =
      error instanceof Error && error.name === 'TimeoutError'
        ? 'it did not answer in time'
        : 'nothing answers there';
    return { state: 'unverified', url: record.url, pid: record.pid, reason };
  }
  if (!provesRecord(record, nonce, proof)) {
    return {
      state: 'unverified',
      url: record.url,
      pid: record.pid,
      reason: 'what answers there is not this home’s gateway',
    };
  }
  return {
    state: 'running',
    link: { url: record.url, token: record.localToken, pid: record.pid, version: record.version },
  };
}

function provesRecord(record: GatewayRecord, nonce: string, proof: unknown): boolean {
  if (typeof proof !== 'string' || !/^[0-9a-f]{64}$/.test(proof)) return false;
  const expected = createHmac('sha256', record.secret).update(nonce).digest();
  return timingSafeEqual(expected, Buffer.from(proof, 'hex'));
}

/** One API call to a verified gateway, with its local token. @throws Error when it cannot be reached. */
export async function callGateway(
  link: GatewayLink,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
  timeoutMs = 10_000,
): Promise<{ status: number; body: unknown }> {
  let response: Response;
  try {
    response = await fetch(`${link.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${link.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw new Error(`the gateway at ${link.url} stopped answering (${(error as Error).message})`);
  }
  return { status: response.status, body: await response.json().catch(() => ({})) };
}
