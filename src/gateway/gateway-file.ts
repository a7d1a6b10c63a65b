import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../util/atomic-write.js';
import { processAlive, processStartId } from '../util/process-alive.js';

/**
 * `<home>/gateway.json` (0600): where this home's running gateway listens and how local commands reach it.
 * Written once the port is bound, removed on shutdown; after a crash it stays behind and is recognised as
 * stale by its pid. Only the owner can read it (the home is 0700), so what it holds is as private as `.env`.
 */
export interface GatewayRecord {
  pid: number;
  /** The process's start id (pid reuse cannot make a stale record look alive). */
  start: string;
  url: string;
  version: string;
  startedAt: number;
  /** Key of the health proof: `HMAC-SHA256(secret, challenge)` shows the answering gateway is this one. */
  secret: string;
  /** A bearer token for local commands (`wren status`, `wren subagents`, `wren chat`), valid for this run. */
  localToken: string;
}

export function gatewayFile(home: string): string {
  return join(home, 'gateway.json');
}

/** A fresh record for this process (secret and local token random). */
export function newGatewayRecord(url: string, version: string): GatewayRecord {
  return {
    pid: process.pid,
    start: processStartId(),
    url,
    version,
    startedAt: Date.now(),
    secret: randomBytes(32).toString('hex'),
    localToken: `wren_local_${randomBytes(24).toString('base64url')}`,
  };
}

export function writeGatewayRecord(home: string, record: GatewayRecord): void {
  writeFileAtomic(gatewayFile(home), `${JSON.stringify(record, null, 2)}\n`, 0o600);
}

/** The record if there is one and its process still runs; undefined for none, garbage or a dead process. */
export function readGatewayRecord(home: string): GatewayRecord | undefined {
  let record: Partial<GatewayRecord>;
  try {
    record = JSON.parse(readFileSync(gatewayFile(home), 'utf8')) as Partial<GatewayRecord>;
  } catch {
    return undefined;
  }
  const complete =
    typeof record.pid === 'number' &&
    typeof record.url === 'string' &&
    typeof record.secret === 'string' &&
    typeof record.localToken === 'string';
  if (!complete || !processAlive(record.pid!, record.start || undefined)) return undefined;
  return record as GatewayRecord;
}

/** Removes the record if it is still this process's (a newer gateway's record is left alone). */
export function removeGatewayRecord(home: string, record: GatewayRecord): void {
  try {
    const current = JSON.parse(readFileSync(gatewayFile(home), 'utf8')) as Partial<GatewayRecord>;
    if (current.secret === record.secret) rmSync(gatewayFile(home), { force: true });
  } catch {
    // Gone or unreadable: nothing of ours to remove.
  }
}

/** Constant-time check of a presented token against the record's local token. */
export function isLocalToken(record: GatewayRecord, presented: string): boolean {
  const expected = Buffer.from(record.localToken);
  const given = Buffer.from(presented);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
