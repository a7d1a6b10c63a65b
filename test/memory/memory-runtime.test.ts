import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentRuntime, type AgentSettings } from '../../src/agent/agent-runtime.js';
import { ContextBuilder } from '../../src/agent/context-builder.js';
import type { SessionStore } from '../../src/agent/session-store.js';
import { ToolRegistry } from '../../src/agent/tool-registry.js';
import { MessageBus } from '../../src/bus/message-bus.js';
import { EndpointPool } from '../../src/llm/endpoint-pool.js';
import { estimateRequestTokens } from '../../src/llm/token-estimate.js';
import type { ChatModel } from '../../src/llm/types.js';
import { createMemory, type Memory } from '../../src/memory/create-memory.js';
import type { MemoryConfig } from '../../src/memory/memory-config.js';
import { openStores } from '../../src/store/open-stores.js';
import { SqliteSessionStore } from '../../src/store/sqlite-session-store.js';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { memoryFixture, SplitModel, saveMemory, testMemoryConfig, until } from '../support/memory-kit.js';

const settings: AgentSettings = {
  maxRounds: 4,
  maxConcurrency: 4,
  maxToolResultChars: 2000,
  repeatLimit: 3,
  historyReserveTokens: 800,
};

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const undo of cleanups.splice(0).reverse()) await undo();
});

/** The runtime wired with memory the way app.ts does it (see the integration notes). */
function compose(model: ChatModel, config: Partial<MemoryConfig> = {}) {
  const fixture = memoryFixture();
  const store: SessionStore = new SqliteSessionStore(fixture.db);
  const memory: Memory = createMemory({
    stores: openStores(fixture.db),
    store,
    model,
    workspace: () => fixture.workspace,
    config: () => testMemoryConfig(config),
    historyBudget: () => {
      const limits = model.limits();
      return limits.contextWindow - limits.maxOutputTokens - settings.historyReserveTokens;
    },
    timezone: () => 'UTC',
  });
  const registry = new ToolRegistry();
  for (const tool of memory.tools) registry.register(tool);
  const bus = new MessageBus();
  const runtime = new AgentRuntime({
    bus,
    store,
    model,
    registry,
    context: new ContextBuilder({
      workspace: fixture.workspace,
      timezone: 'UTC',
      ...memory.contextOptions(),
    }),
    workspace: () => fixture.workspace,
    settings: () => settings,
    onTurnEnd: ({ session }) => memory.afterTurn(session),
    beforeNewSession: (old) => memory.beforeNewSession(old),
    commands: memory.commands,
  });
  runtime.start();
  cleanups.push(async () => {
    await runtime.stop(1000);
    await memory.close(0);
    fixture.db.close();
    rmSync(fixture.dir, { recursive: true, force: true });
  });
  let n = 0;
  const send = (text: string, chatId = 'owner') =>
    bus.request({ id: `m${++n}`, channel: 'test', senderId: 'owner', chatId, text, fromOwner: true });
  const read = (name: string) => readFileSync(join(fixture.workspace, name), 'utf8');
  return { ...fixture, store, memory, send, read, runtime };
}

describe('memory in the runtime', () => {
  let llm: FakeLlmServer;
  afterEach(async () => llm?.close());

  it('remembers a fact from a consolidated session in a new session, and finds it with memory_search', async () => {
    llm = await startFakeLlmServer();
    const pool = new EndpointPool({
      endpoints: [
        llm.endpoint('openai', { name: 'main', contextWindow: 6000, maxOutputTokens: 500 }),
        llm.endpoint('anthropic', {
          name: 'small',
          tags: ['small'],
          contextWindow: 8000,
          maxOutputTokens: 500,
        }),
      ],
      retry: { attempts: 1 },
    });
    llm.setHandler((request) => {
      if (request.toolNames.includes('save_memory')) {
        const text = JSON.stringify(request.body);
        return {
          toolCalls: [
            {
              name: 'save_memory',
              arguments: {
                history_entry: 'The owner talked about training plans.',
                summary: 'Training talk.',
                memory_add: text.includes('Berlin marathon')
                  ? ['The owner is training for the Berlin marathon in September.']
                  : [],
              },
            },
          ],
        };
      }
      return { text: 'Noted.' };
    });
    const { send, read, store } = compose(pool);
    const first = await send('Remember: I am training for the Berlin marathon in September.');
    for (let i = 0; i < 40 && !read('MEMORY.md').includes('Berlin'); i++) {
      await send(`Filler message ${i}: ${'lorem ipsum dolor sit amet '.repeat(30)}`);
    }
    await until(() => read('MEMORY.md').includes('Berlin marathon'));
    expect(
      llm.requests
        .filter((r) => r.toolNames.includes('save_memory'))
        .every((r) => r.protocol === 'anthropic'),
    ).toBe(true);
    const state = await store.memoryState(first.sessionId);
    expect(state.consolidatedSeq).toBeGreaterThan(0);
    expect(read('HISTORY.md')).toContain('The owner talked about training plans.');

    const fresh = await send('/new');
    expect(fresh.text).toMatch(/Started a new session/);
    expect(fresh.sessionId).not.toBe(first.sessionId);
    llm.reset();
    llm.script(
      {
        toolCalls: [{ name: 'memory_search', arguments: { query: 'Berlin marathon' } }],
        match: { protocol: 'openai' },
      },
      { text: 'You are training for the Berlin marathon.', match: { protocol: 'openai' } },
    );
    const answer = await send('What am I training for?');
    expect(answer.text).toBe('You are training for the Berlin marathon.');
    const [ask, afterTool] = llm.requests.filter((r) => r.protocol === 'openai');
    expect(ask!.system).toContain('The owner is training for the Berlin marathon in September.');
    expect(ask!.toolNames[0]).toBe('memory_search');
    const toolResult = (afterTool!.body.messages as Array<{ role: string; content: string }>).find(
      (m) => m.role === 'tool',
    );
    expect(toolResult!.content).toMatch(/owner: .*\[Berlin\] \[marathon\]/);
    expect(toolResult!.content).toContain(`session ${first.sessionId.slice(0, 8)}`);
    expect(toolResult!.content).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}/);
  });

  it('keeps the prompt of a 5,000-turn session with a 2 MB tool result within the window', async () => {
    const model = new SplitModel({ contextWindow: 8000, maxOutputTokens: 1000 });
    const { send, store, db } = compose(model, { retryBaseMs: 60_000 });
    model.consolidate = () => ({ stopReason: 'error', errorMessage: 'consolidation disabled here' });
    const session = await store.activeSession('test:owner', { channel: 'test', chatId: 'owner' });
    const insert = db.prepare(
      'INSERT INTO messages (session_id, seq, role, content, tokens, details, created_at) VALUES (?, ?, ?, ?, ?, NULL, ?)',
    );
    db.transaction(() => {
      let seq = 0;
      for (let n = 0; n < 5000; n++) {
        insert.run(
          session.id,
          ++seq,
          'user',
          JSON.stringify({ role: 'user', content: `turn ${n} ${'words '.repeat(20)}` }),
          30,
          n,
        );
        insert.run(
          session.id,
          ++seq,
          'assistant',
          JSON.stringify({ role: 'assistant', content: `reply ${n}` }),
          8,
          n,
        );
      }
      const huge = 'data '.repeat(400_000); // 2 MB
      insert.run(session.id, ++seq, 'user', JSON.stringify({ role: 'user', content: 'fetch' }), 5, 1);
      insert.run(
        session.id,
        ++seq,
        'assistant',
        JSON.stringify({
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'c', name: 'web_fetch', arguments: '{}' }],
        }),
        10,
        1,
      );
      insert.run(
        session.id,
        ++seq,
        'tool',
        JSON.stringify({ role: 'tool', toolCallId: 'c', toolName: 'web_fetch', content: huge }),
        400_010,
        1,
      );
    })();
    model.chat = () => ({ text: 'still here' });
    const reply = await send(`and a long paste ${'x'.repeat(1_000_000)}`);
    expect(reply.text).toBe('still here');
    for (const request of model.requests.filter((r) => !r.tools?.some((t) => t.name === 'save_memory'))) {
      expect(estimateRequestTokens(request)).toBeLessThanOrEqual(8000 - 1000);
    }
  });

  it('answers normally while consolidation fails three times in a row, and shows the failure', async () => {
    const model = new SplitModel({ contextWindow: 3000, maxOutputTokens: 300 });
    const { send, memory, db } = compose(model, { retryBaseMs: 5, retryMaxMs: 20 });
    let failures = 0;
    model.consolidate = () => {
      failures++;
      return { stopReason: 'error', errorMessage: 'fake-small: HTTP 500 Internal Server Error' };
    };
    model.chat = () => ({ text: 'answer' });
    let sessionId = '';
    for (let i = 0; i < 12; i++) {
      const reply = await send(`message ${i} ${'filler text '.repeat(40)}`);
      expect(reply).toMatchObject({ kind: 'reply', text: 'answer' });
      sessionId = reply.sessionId;
    }
    await until(() => failures >= 3);
    await until(
      () => (memory.consolidator.status().find((s) => s.sessionId === sessionId)?.failures ?? 0) >= 3,
    );
    const { consolidationStatus } = await import('../../src/store/consolidation-status-repository.js');
    const visible = consolidationStatus(db);
    expect(visible.failing[0]).toMatchObject({ sessionId });
    expect(visible.failing[0]!.failures).toBeGreaterThanOrEqual(3);
    expect(visible.failing[0]!.lastError).toContain('HTTP 500');
    const shown = await send('/memory');
    expect(shown.text).toMatch(/Consolidation is failing \(\d+× in a row: fake-small: HTTP 500/);
    expect((await send('still there?')).text).toBe('answer');
    model.consolidate = () => saveMemory({ summary: 'recovered' });
    await until(() => consolidationStatus(db).failing.length === 0);
  });

  it('/memory shows the facts and /forget removes one only after confirmation', async () => {
    const { send, read, workspace, db } = compose(new SplitModel());
    const path = join(workspace, 'MEMORY.md');
    writeFileSync(path, `${read('MEMORY.md')}- Likes green tea.\n- Works at Acme as a nurse.\n`);
    expect((await send('/memory')).text).toContain('- Likes green tea.');
    expect((await send('/forget yes')).text).toMatch(/Nothing to confirm/);
    expect((await send('/forget coffee')).text).toMatch(/Nothing in MEMORY.md contains "coffee"/);
    const proposal = await send('/forget green tea');
    expect(proposal.text).toContain('- Likes green tea.');
    expect(proposal.text).toMatch(/\/forget yes/);
    expect(read('MEMORY.md')).toContain('green tea');
    expect((await send('/forget no')).text).toMatch(/Kept/);
    expect(read('MEMORY.md')).toContain('green tea');
    await send('/forget green tea');
    expect((await send('/forget yes')).text).toBe('Removed 1 line(s) from MEMORY.md.');
    expect(read('MEMORY.md')).not.toContain('green tea');
    expect(read('MEMORY.md')).toContain('- Works at Acme as a nurse.');
    expect((await send('/help')).text).toMatch(/\/forget/);
    // The file as first seen (with the hand edit) is the disk baseline; the removal a version by /forget.
    expect(
      openStores(db)
        .fileVersions.list({ path: 'MEMORY.md' })
        .map(({ author, note }) => `${author}: ${note}`)
        .slice(0, 2),
    ).toEqual(['/forget: 1 line(s) removed', 'disk: first seen']);
  });
});
