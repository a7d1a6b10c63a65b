import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

const RADICALE = '/usr/bin/radicale';

/**
 * A real CalDAV server for calendar tests: Debian's Radicale 3.1 (package `radicale`, installed by `.ci/run`),
 * started on 127.0.0.1 with a throwaway filesystem store and one htpasswd user (plain text). `makeCalendar`
 * creates a calendar collection (MKCALENDAR) and returns its URL.
 */
export async function startRadicale(user = 'sam', password = 'radicale-test-password') {
  if (!existsSync(RADICALE))
    throw new Error(
      `${RADICALE} not found: the calendar tests need a real CalDAV server. Install it with \`apt-get install radicale\` (.ci/run does).`,
    );
  const dir = mkdtempSync(join(tmpdir(), 'wren-radicale-'));
  const users = join(dir, 'users');
  writeFileSync(users, `${user}:${password}\n`);
  const port = await freePort();
  const child: ChildProcess = spawn(
    RADICALE,
    [
      '--config',
      '',
      '--server-hosts',
      `127.0.0.1:${port}`,
      '--storage-filesystem-folder',
      join(dir, 'collections'),
      '--auth-type',
      'htpasswd',
      '--auth-htpasswd-filename',
      users,
      '--auth-htpasswd-encryption',
      'plain',
      '--rights-type',
      'owner_only',
      '--logging-level',
      'warning',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const url = `http://127.0.0.1:${port}`;
  const authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const up = await fetch(`${url}/.web/`).then(
      (response) => response.status < 500,
      () => false,
    );
    if (up) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`radicale did not start: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    user,
    password,
    authorization,
    /** Creates the calendar `name` of the user (MKCALENDAR); returns its collection URL (trailing slash). */
    async makeCalendar(name: string): Promise<string> {
      const collection = `${url}/${user}/${name}/`;
      const response = await fetch(collection, {
        method: 'MKCALENDAR',
        headers: { authorization, 'content-type': 'application/xml' },
        body: `<?xml version="1.0" encoding="utf-8"?><C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:set><D:prop><D:displayname>${name}</D:displayname></D:prop></D:set></C:mkcalendar>`,
      });
      if (response.status !== 201)
        throw new Error(`MKCALENDAR ${collection}: ${response.status} ${await response.text()}`);
      return collection;
    },
    /** Another client's write: PUT an object as is (If-Match when `etag` is given). */
    async put(objectUrl: string, ics: string, etag?: string): Promise<Response> {
      return fetch(objectUrl, {
        method: 'PUT',
        headers: {
          authorization,
          'content-type': 'text/calendar; charset=utf-8',
          ...(etag ? { 'if-match': etag } : {}),
        },
        body: ics,
      });
    },
    /** Another client's delete. */
    async remove(objectUrl: string): Promise<Response> {
      return fetch(objectUrl, { method: 'DELETE', headers: { authorization } });
    },
    stop(): Promise<void> {
      return new Promise((resolve) => {
        const done = () => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        };
        if (child.exitCode !== null) return done();
        child.once('exit', done);
        child.kill('SIGTERM');
      });
    },
  };
}

export type Radicale = Awaited<ReturnType<typeof startRadicale>>;
