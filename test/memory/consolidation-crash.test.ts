import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { EndpointPool } from '../../src/llm/endpoint-pool.js';
import { Consolidator } from '../../src/memory/consolidator.js';
import { parseHistoryEntries } from '../../src/memory/history-file.js';
import { SqliteConsolidationStatusStore } from '../../src/store/consolidation-status-repository.js';
import { SqliteSessionStore } from '../../src/store/sqlite-session-store.js';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { memoryFixture, openMemoryDatabase, testMemoryConfig, turn } from '../support/memory-kit.js';

const CHILD = fileURLToPath(new URL('./fixtures/consolidate-child.ts', import.meta.url));
const ORIGINAL_MEMORY = '# Memory\n\nHand-kept facts.\n- The owner has a cat called Miso.\n';
const TURNS = 30;

let llm: FakeLlmServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await llm?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Answers every consolidation with a save_memory call naming the session's first question. */
function answer(slow: boolean) {
  return (request: { body: unknown }) => {
    const text = JSON.stringify(request.body);
    const topic = /question (alpha|beta) 0/.exec(text)?.[1] ?? 'unknown';
    return {
      toolCalls: [
        {
          name: 'save_memory',
          arguments: {
            history_entry: `Talked about ${topic}. ${'Detail. '.repeat(200)}`,
            summary: `Session about ${topic}.`,
            memory_add: [`The owner asked about ${topic}.`],
          },
        },
      ],
      ...(slow ? { chunkDelayMs: 200 } : {}),
    };
  };
}

/** Runs the child until `killWhen` says so, then SIGKILLs it. */
function runAndKill(args: string[], killWhen: (stdout: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const poll = setInterval(() => {
      if (child.exitCode === null && !child.killed && killWhen(stdout)) child.kill('SIGKILL');
    }, 5);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearInterval(poll);
      if (signal === 'SIGKILL') resolve(stdout);
      else reject(new Error(`child exited on its own (code ${code}) before the kill:\n${stdout}\n${stderr}`));
    });
  });
}

type KillPoint = 'model-streaming' | 'saved' | 'history-written' | 'memory-written';

async function crashAndRecover(point: KillPoint) {
  llm = await startFakeLlmServer();
  const fixture = memoryFixture();
  dir = fixture.dir;
  writeFileSync(join(fixture.workspace, 'MEMORY.md'), ORIGINAL_MEMORY);
  const store = new SqliteSessionStore(fixture.db);
  const ids: string[] = [];
  for (const name of ['alpha', 'beta']) {
    const session = await store.activeSession(name, { channel: 't', chatId: name });
    for (let n = 0; n < TURNS; n++)
      await store.appendMessages(session.id, turn(`question ${name} ${n}`, `answer ${n}`, 40));
    ids.push(session.id);
  }
  fixture.db.close();

  llm.setHandler(answer(point === 'model-streaming'));
  const hold = point === 'model-streaming' ? 'none' : point;
  await runAndKill([fixture.path, fixture.workspace, llm.baseUrls.openai, hold, ...ids], (stdout) =>
    point === 'model-streaming'
      ? (llm?.requests.length ?? 0) >= 2 && stdout.includes('model-start')
      : stdout.includes(`stage ${point}`),
  );
  const askedBefore = llm.requests.length;

  // Right after the crash: each Markdown file is the old or a complete new version.
  const memoryAfterCrash = readFileSync(join(fixture.workspace, 'MEMORY.md'), 'utf8');
  expect(memoryAfterCrash.startsWith(ORIGINAL_MEMORY)).toBe(true);
  expect(memoryAfterCrash.endsWith('\n')).toBe(true);
  for (const line of memoryAfterCrash.slice(ORIGINAL_MEMORY.length).split('\n').filter(Boolean)) {
    expect(line).toMatch(/^- The owner asked about (alpha|beta)\.$/);
  }
  const historyPath = join(fixture.workspace, 'HISTORY.md');
  if (existsSync(historyPath)) {
    const history = readFileSync(historyPath, 'utf8');
    for (const entry of parseHistoryEntries(history)) expect(entry.body).toMatch(/Detail\.$/);
  }

  // Restart: finish what was saved, consolidate the rest.
  llm.setHandler(answer(false));
  const db = openMemoryDatabase(fixture.path);
  const reopened = new SqliteSessionStore(db);
  const consolidator = new Consolidator({
    store: reopened,
    model: new EndpointPool({
      endpoints: [llm.endpoint('openai', { tags: ['small'] })],
      retry: { attempts: 1 },
    }),
    status: new SqliteConsolidationStatusStore(db),
    workspace: () => fixture.workspace,
    config: () => testMemoryConfig(),
    historyBudget: () => 100_000,
  });
  await consolidator.recover();
  const askedForRecovery = llm.requests.length - askedBefore;
  for (const id of ids) expect(await consolidator.flush(id)).toBe(true);
  const history = readFileSync(historyPath, 'utf8');
  for (const id of ids) {
    const state = await reopened.memoryState(id);
    expect(state.lastSeq).toBe(TURNS * 2); // no turn lost
    expect(state.consolidatedSeq).toBe(TURNS * 2);
    const ranges = [...history.matchAll(new RegExp(`session=${id} seq=(\\d+)-(\\d+)`, 'g'))].map((m) => [
      Number(m[1]),
      Number(m[2]),
    ]);
    // Contiguous, non-overlapping ranges covering every message exactly once: none summarised twice.
    expect(ranges[0]![0]).toBe(1);
    for (let i = 1; i < ranges.length; i++) expect(ranges[i]![0]).toBe(ranges[i - 1]![1]! + 1);
    expect(ranges.at(-1)![1]).toBe(TURNS * 2);
    expect((await reopened.messagesAfter(id, 0, 1000)).length).toBe(TURNS * 2);
  }
  const memory = readFileSync(join(fixture.workspace, 'MEMORY.md'), 'utf8');
  expect(memory.match(/asked about alpha/g)).toHaveLength(1);
  expect(memory.match(/asked about beta/g)).toHaveLength(1);
  expect(memory.startsWith(ORIGINAL_MEMORY)).toBe(true);
  expect(await reopened.pendingConsolidations()).toEqual([]);
  db.close();
  return { askedForRecovery };
}

describe('kill -9 during consolidation', () => {
  it('while the model is still answering: nothing is saved, everything is redone once', async () => {
    await crashAndRecover('model-streaming');
  });

  for (const point of ['saved', 'history-written', 'memory-written'] as const) {
    it(`after the answer was saved (${point}): the restart finishes it without asking the model again`, async () => {
      const { askedForRecovery } = await crashAndRecover(point);
      expect(askedForRecovery).toBe(0);
    });
  }
});
