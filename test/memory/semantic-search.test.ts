import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createApp, type WrenApp } from '../../src/app/create-app.js';
import { runStatus } from '../../src/cli/commands/status.js';
import { type FakeEmbeddingServer, startFakeEmbeddingServer } from '../fakes/fake-embedding-server.js';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { cliEnv } from '../support/wren-home.js';

const FACT = "The owner's daughter Mia studies violin at the conservatory";
const PARAPHRASE = 'what instrument does my kid play';
const EMBED_KEY = 'sk-embed-secret-ABCDEFGH12345';
const CLI = fileURLToPath(new URL('./fixtures/memory-cli.ts', import.meta.url));

let llm: FakeLlmServer;
let embeddings: FakeEmbeddingServer;
beforeAll(async () => {
  llm = await startFakeLlmServer();
  embeddings = await startFakeEmbeddingServer({ apiKey: EMBED_KEY });
});
afterAll(async () => {
  await llm.close();
  await embeddings.close();
});
beforeEach(() => {
  llm.reset();
  embeddings.requests.length = 0;
  embeddings.strayRequests.length = 0;
});

/** A home whose config.yaml has the chat model and, unless `embedding` is false, the embedding model. */
function makeHome(options: { embedding?: boolean } = {}): string {
  const home = join(mkdtempSync(join(tmpdir(), 'wren-semantic-')), 'home');
  mkdirSync(home, { mode: 0o700 });
  const chat = `  - name: main\n    protocol: openai\n    base_url: ${llm.baseUrls.openai}\n    model: fake-model\n`;
  const embed = `  - name: embed\n    protocol: openai\n    base_url: ${embeddings.baseUrl}\n    api_key: \${EMBED_KEY}\n    model: fake-embed\n    tags: [embedding]\n`;
  writeFileSync(
    join(home, 'config.yaml'),
    `agent:\n  timezone: UTC\nmodels:\n${chat}${options.embedding === false ? '' : embed}`,
    { mode: 0o600 },
  );
  writeFileSync(join(home, '.env'), `EMBED_KEY=${EMBED_KEY}\n`, { mode: 0o600 });
  return home;
}

const say = (app: WrenApp, text: string, id: string) =>
  app.bus.request({ id, channel: 'cli', senderId: 'owner', fromOwner: true, chatId: 'c', text });

/** The text of the last tool result the model was sent. */
function lastToolResult(): string {
  const messages = llm.lastRequest?.body.messages as Array<{ role: string; content: string }>;
  return messages.filter((message) => message.role === 'tool').at(-1)?.content ?? '';
}

function memoryCli(
  home: string,
  ...args: string[]
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
      env: cliEnv(home),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('semantic memory search in the app', () => {
  it('embeds in the background and memory_search and wren memory search find a paraphrase', async () => {
    const home = makeHome();
    const app = await createApp({ home, env: {} });
    try {
      llm.script({ text: 'Noted.' });
      expect((await say(app, FACT, '1')).text).toBe('Noted.');
      // The turn stored the fact; the embedder sends it after the turn, never during it.
      await vi.waitFor(
        () => expect(embeddings.requests.flatMap((request) => request.input)).toContain(FACT),
        { timeout: 15_000, interval: 50 },
      );
      await vi.waitFor(() => expect(app.status('test').memorySearch).toMatchObject({ waiting: 0 }), {
        timeout: 15_000,
        interval: 50,
      });
      expect(app.status('test').memorySearch).toMatchObject({
        mode: 'hybrid',
        model: 'fake-embed',
        embedded: 2,
      });

      llm.script(
        { toolCalls: [{ name: 'memory_search', arguments: { query: PARAPHRASE } }] },
        { text: 'She plays the violin.' },
      );
      expect((await say(app, 'Which instrument does my kid play?', '2')).text).toBe('She plays the violin.');
      expect(lastToolResult()).toContain(FACT);
      expect(embeddings.requests.some((request) => request.input.includes(PARAPHRASE))).toBe(true);

      // Each model does its own job only.
      expect(embeddings.strayRequests).toEqual([]);
      expect(llm.requests.every((request) => request.model === 'fake-model')).toBe(true);
      expect(embeddings.requests.every((request) => request.apiKey === EMBED_KEY)).toBe(true);
    } finally {
      await app.close();
    }
    const cli = await memoryCli(home, 'memory', 'search', ...PARAPHRASE.split(' '), '--json');
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(0);
    // The question asked in the app matches by words (and meaning, once embedded); the fact by meaning alone.
    const hits = JSON.parse(cli.stdout).messages as Array<{ snippet: string; match: string }>;
    expect(hits.find((hit) => hit.snippet === FACT)).toMatchObject({ match: 'meaning', role: 'user' });

    const printed: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      printed.push(String(chunk));
      return true;
    });
    try {
      await runStatus({ home });
    } finally {
      write.mockRestore();
    }
    expect(printed.join('')).toMatch(
      /\nsearch {4}keywords and meaning \(fake-embed\): [2-9] texts embedded, \d+ messages waiting\n/,
    );
  }, 60_000);

  it('keeps the prompt and the keyword search as they were, and the key out of logs and status', async () => {
    const plain = makeHome({ embedding: false });
    const withEmbedding = makeHome();
    // The endpoint refuses this key (and, like some real servers, echoes it): nothing may repeat it.
    writeFileSync(join(withEmbedding, '.env'), 'EMBED_KEY=sk-wrong-key-ZYXWVU98765\n', { mode: 0o600 });
    const bodies: unknown[] = [];
    for (const home of [plain, withEmbedding]) {
      const app = await createApp({ home, env: {} });
      try {
        llm.script({ text: 'hello' });
        await say(app, 'hi', 'hi');
        const body = llm.lastRequest!.body as {
          messages: Array<{ role: string; content: string }>;
          tools: unknown;
        };
        bodies.push({
          system: body.messages.filter((message) => message.role === 'system'),
          tools: body.tools,
        });
        if (home === withEmbedding) {
          await vi.waitFor(() => expect(embeddings.requests.length).toBeGreaterThan(0), { timeout: 15_000 });
          await vi.waitFor(() => expect(app.status('test').memorySearch).toMatchObject({ failures: 1 }), {
            timeout: 15_000,
          });
          expect(embeddings.requests[0]!.apiKey).toBe('sk-wrong-key-ZYXWVU98765');
          const status = JSON.stringify(app.status('test'));
          expect(status).toContain('rejected the API key (HTTP 401)');
          expect(status).not.toContain('sk-wrong-key-ZYXWVU98765');
          expect(app.gate.redactor.text('key sk-wrong-key-ZYXWVU98765')).toBe('key [redacted]');
          // Keyword search still answers while embedding fails.
          llm.script(
            { toolCalls: [{ name: 'memory_search', arguments: { query: 'hi' } }] },
            { text: 'found' },
          );
          await say(app, 'search', 'search');
          expect(lastToolResult()).toContain('owner: [hi]');
        } else {
          expect(app.status('test').memorySearch).toEqual({ mode: 'keywords' });
        }
      } finally {
        await app.close();
      }
    }
    expect(bodies[1]).toEqual(bodies[0]);
    const log = readFileSync(join(withEmbedding, 'logs', 'wren.log'), 'utf8');
    expect(log).toContain('embedding for memory search failed');
    expect(log).not.toContain('sk-wrong-key-ZYXWVU98765');
    // Without an embedding model the CLI searches by keywords as before: nothing is sent anywhere.
    const before = embeddings.requests.length;
    expect((await memoryCli(plain, 'memory', 'search', 'hi')).code).toBe(0);
    expect((await memoryCli(plain, 'memory', 'search', ...PARAPHRASE.split(' '))).code).toBe(1);
    expect(embeddings.requests.length).toBe(before);
  }, 60_000);
});
