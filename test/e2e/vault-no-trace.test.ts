import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { cliEnv, makeHome, type RunningWren, runCli, startWren } from '../support/wren-home.js';

/** The secret, with characters that make its URL-encoded and base64 forms differ from it. */
const VALUE = 'Vault+Value/2026 ok=yes';
const FORMS = {
  plain: VALUE,
  url: encodeURIComponent(VALUE),
  normalised: encodeURI(VALUE),
  base64: Buffer.from(VALUE).toString('base64').replace(/=+$/, ''),
  // Two halves of a split: neither should appear next to the other's join point either.
  split: VALUE.slice(0, 12),
};
const TOKEN = 'vault-e2e-gateway-token';

let llm: FakeLlmServer;
let site: Server;
let siteUrl: string;
const seen: Array<{ url: string; headers: IncomingHttpHeaders }> = [];

beforeAll(async () => {
  llm = await startFakeLlmServer();
  site = createServer((request, response) => {
    seen.push({ url: request.url ?? '', headers: request.headers });
    const token = String(request.headers['x-token'] ?? '');
    // An API that echoes what it got, in every form the redactor covers.
    response
      .writeHead(200, { 'content-type': 'text/plain' })
      .end(
        `plain=${token}\nurl=${encodeURIComponent(token)}\nbase64=${Buffer.from(token).toString('base64')}\n`,
      );
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(() => {
  llm.close();
  site.closeAllConnections();
  site.close();
});

/** Every file under `dir` (the whole home: wren.db and its WAL, logs/wren.log, the exec logs …) as bytes. */
function filesUnder(dir: string): Array<{ path: string; bytes: Buffer }> {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    const info = statSync(path);
    if (info.isDirectory()) return filesUnder(path);
    return info.isFile() ? [{ path, bytes: readFileSync(path) }] : [];
  });
}

function traces(text: string): string[] {
  return Object.entries(FORMS)
    .filter(([name, form]) => (name === 'split' ? text.includes(VALUE) : text.includes(form)))
    .map(([name]) => name);
}

/** A home whose model is the fake, gate in auto mode (so only the vault's own checks ask), web_fetch to the site. */
function homeWith(): string {
  const port = new URL(siteUrl).port;
  return makeHome(`
models:
  - name: main
    protocol: openai
    base_url: \${FAKE_BASE}
    model: fake-model
gate:
  mode: auto
tools:
  exec:
    sandbox: none
    output_cap: 1000
web:
  fetch:
    allow: ["127.0.0.1:${port}"]
log:
  level: debug
`);
}

describe('a vault secret (the real wren start)', () => {
  let wren: RunningWren | undefined;
  afterAll(async () => {
    await wren?.stop();
  });

  it('reaches the exec env and a web_fetch header, and leaves no trace in prompts, home, audit, logs or SSE', {
    timeout: 60_000,
  }, async () => {
    const home = homeWith();
    const env = cliEnv(home, { FAKE_BASE: llm.baseUrls.openai, WREN_GATEWAY_TOKEN: TOKEN });
    const set = await runCli(
      [
        'vault',
        'set',
        'API_TOKEN',
        '--host',
        '127.0.0.1',
        '--program',
        'printf',
        '--program',
        'sha256sum',
        '--program',
        'base64',
        '--program',
        'yes',
        '--program',
        'head',
      ],
      env,
      `${VALUE}\n`,
    );
    expect(set.code).toBe(0);
    wren = await startWren(env);

    llm.script(
      {
        toolCalls: [
          {
            name: 'exec',
            arguments: {
              command:
                'printf "%s" "$API_TOKEN" | sha256sum; printf "%s|" "$API_TOKEN"; printf "%s" "{{vault:API_TOKEN}}" | base64; yes "$API_TOKEN" | head -n 200',
              env: { API_TOKEN: '{{vault:API_TOKEN}}' },
            },
          },
        ],
      },
      {
        toolCalls: [
          {
            name: 'web_fetch',
            arguments: {
              url: `${siteUrl}/api?key={{vault:API_TOKEN}}`,
              headers: { 'x-token': '{{vault:API_TOKEN}}' },
            },
          },
        ],
      },
      // A model that somehow writes the value out, split across stream chunks.
      { text: `Done: ${VALUE} end`, chunks: ['Done: ', VALUE.slice(0, 12), VALUE.slice(12), ' end'] },
    );
    const response = await fetch(`${wren.url}/api/chat`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: JSON.stringify({ message: 'use the API token' }),
    });
    const sse = await response.text();
    expect(sse).toMatch(/event: done/);

    // It reached where it is bound, whole.
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers['x-token']).toBe(VALUE);
    expect(seen[0]!.url).toBe(`/api?key=${encodeURIComponent(VALUE)}`);
    const prompts = JSON.stringify(llm.requests.map((request) => request.body));
    expect(prompts).toContain(createHash('sha256').update(VALUE).digest('hex'));
    // The model is told the name and where it may go, never the value.
    expect(prompts).toContain('API_TOKEN (hosts 127.0.0.1; programs printf, sha256sum, base64, yes, head)');
    expect(prompts).toContain('plain=[redacted]');
    expect(prompts).toContain('base64=[redacted]');
    expect(prompts).toContain('url=[redacted]');

    // No trace anywhere.
    expect(traces(prompts)).toEqual([]);
    expect(traces(sse)).toEqual([]);
    // The deltas joined: a value split across two chunks would be whole again here.
    const deltas = [...sse.matchAll(/event: delta\ndata: (.*)\n/g)]
      .map((match) => (JSON.parse(match[1]!) as { text: string }).text)
      .join('');
    expect(deltas).toBe('Done: [redacted] end');
    expect(sse).toContain('[redacted]');
    const session = /"session":"([^"]+)"/.exec(sse)?.[1];
    expect(session).toBeDefined();
    const transcript = await (
      await fetch(`${wren.url}/api/sessions/${session}/messages`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      })
    ).text();
    expect(transcript).toContain('{{vault:API_TOKEN}}');
    expect(traces(transcript)).toEqual([]);
    const audit = await runCli(['audit', '--json'], env);
    expect(audit.stdout).toContain('{{vault:API_TOKEN}}');
    expect(traces(audit.stdout)).toEqual([]);
    await wren.stop();
    wren = undefined;
    const files = filesUnder(home);
    expect(files.map((file) => file.path).some((path) => path.includes(join('.wren', 'exec')))).toBe(true);
    expect(files.some((file) => file.path.endsWith(join('logs', 'wren.log')))).toBe(true);
    const leaks = files.flatMap((file) =>
      traces(file.bytes.toString('latin1')).map((form) => `${form} in ${file.path}`),
    );
    expect(leaks).toEqual([]);
  });

  it('a tainted turn cannot use a bound secret, nor send one to a host it is not bound to, without the owner', {
    timeout: 60_000,
  }, async () => {
    seen.length = 0;
    const home = homeWith();
    const env = cliEnv(home, { FAKE_BASE: llm.baseUrls.openai, WREN_GATEWAY_TOKEN: TOKEN });
    for (const [name, host] of [
      ['API_TOKEN', '127.0.0.1'],
      ['OTHER_TOKEN', 'api.example.com'],
    ] as const)
      expect((await runCli(['vault', 'set', name, '--host', host], env, `${VALUE}-${name}\n`)).code).toBe(0);
    wren = await startWren(env);
    const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    llm.reset();
    llm.script(
      { toolCalls: [{ name: 'web_fetch', arguments: { url: `${siteUrl}/public` } }] },
      {
        toolCalls: [
          {
            name: 'web_fetch',
            arguments: { url: `${siteUrl}/a`, headers: { 'x-token': '{{vault:API_TOKEN}}' } },
          },
        ],
      },
      {
        toolCalls: [
          {
            name: 'web_fetch',
            arguments: { url: `${siteUrl}/b`, headers: { 'x-token': '{{vault:OTHER_TOKEN}}' } },
          },
        ],
      },
      { text: 'both were denied' },
    );
    const reply = fetch(`${wren.url}/api/chat`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ message: 'read the page, then call the API' }),
    });
    const reasons: string[] = [];
    for (let answered = 0; answered < 2; ) {
      const { pending } = (await (await fetch(`${wren.url}/api/approvals`, { headers: auth })).json()) as {
        pending: Array<{ id: string; reason: string; args: string }>;
      };
      const request = pending[0];
      if (!request) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        continue;
      }
      expect(request.args).toMatch(/\{\{vault:(API|OTHER)_TOKEN\}\}/);
      expect(JSON.stringify(request)).not.toContain(VALUE);
      reasons.push(request.reason);
      await fetch(`${wren.url}/api/approvals/${request.id}`, {
        method: 'POST',
        headers: auth,
        body: '{"answer":"deny"}',
      });
      answered++;
    }
    expect(((await (await reply).json()) as { reply: string }).reply).toBe('both were denied');
    expect(reasons[0]).toMatch(/uses vault secret API_TOKEN in a session that read untrusted content/);
    expect(reasons[1]).toMatch(
      /sends vault secret OTHER_TOKEN to host 127\.0\.0\.1, not among its bindings \(api\.example\.com\)/,
    );
    // Only the page without a secret was fetched.
    expect(seen.map((request) => request.url)).toEqual(['/public']);
  });
});
