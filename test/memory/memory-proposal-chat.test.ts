import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentRuntime } from '../../src/agent/agent-runtime.js';
import { ContextBuilder } from '../../src/agent/context-builder.js';
import { ToolRegistry } from '../../src/agent/tool-registry.js';
import { MessageBus } from '../../src/bus/message-bus.js';
import { createMemory } from '../../src/memory/create-memory.js';
import { normalizeFact } from '../../src/memory/memory-file.js';
import { openStores } from '../../src/store/open-stores.js';
import { SqliteSessionStore } from '../../src/store/sqlite-session-store.js';
import { memoryFixture, SplitModel, testMemoryConfig } from '../support/memory-kit.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const undo of cleanups.splice(0).reverse()) await undo();
});

const MEMORY = '# Memory\n\n- Ana is vegetarian.\n- Prefers short answers.\n';

/** The runtime with memory's commands as app.ts wires them, MEMORY.md with two facts, no proposal yet. */
function compose() {
  const fixture = memoryFixture();
  writeFileSync(join(fixture.workspace, 'MEMORY.md'), MEMORY);
  const stores = openStores(fixture.db);
  const store = new SqliteSessionStore(fixture.db);
  const model = new SplitModel();
  const memory = createMemory({
    stores,
    store,
    model,
    workspace: () => fixture.workspace,
    config: () => testMemoryConfig(),
    historyBudget: () => 10_000,
    timezone: () => 'UTC',
  });
  const bus = new MessageBus();
  const runtime = new AgentRuntime({
    bus,
    store,
    model,
    registry: new ToolRegistry(),
    context: new ContextBuilder({
      workspace: fixture.workspace,
      timezone: 'UTC',
      ...memory.contextOptions(),
    }),
    workspace: () => fixture.workspace,
    settings: () => ({
      maxRounds: 2,
      maxConcurrency: 2,
      maxToolResultChars: 1000,
      repeatLimit: 2,
      historyReserveTokens: 100,
    }),
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
  const send = (text: string, fromOwner = true) =>
    bus.request({
      id: `m${++n}`,
      channel: 'test',
      senderId: fromOwner ? 'owner' : 'x',
      chatId: 'c',
      text,
      fromOwner,
    });
  const propose = (text: string, file: 'USER.md' | 'AGENTS.md' = 'USER.md') =>
    stores.memoryProposals.add([
      { file, text, key: normalizeFact(text), reason: 'a standing preference', dreamKey: 'tidy:1' },
    ]);
  const read = (name: string) => readFileSync(join(fixture.workspace, name), 'utf8');
  return { send, propose, read, stores };
}

describe('/memory and Dream’s proposals', () => {
  it('says nothing of proposals when there are none, and lists none', async () => {
    const { send } = compose();
    expect((await send('/memory')).text).not.toMatch(/proposal/);
    expect((await send('/memory proposals')).text).toBe('No memory proposals wait for you.');
  });

  it('counts the waiting ones, lists them, and accept moves the line', async () => {
    const { send, propose, read } = compose();
    propose('- Prefers short answers.');
    propose('- Ana is vegetarian.', 'AGENTS.md');
    expect((await send('/memory')).text).toContain('\n\n2 memory proposals wait: /memory proposals\n\n');
    expect((await send('/memory proposals')).text).toBe(
      'Dream proposes moving these MEMORY.md lines:\n' +
        '1. MEMORY.md → USER.md: - Prefers short answers.\n   why: a standing preference\n' +
        '2. MEMORY.md → AGENTS.md: - Ana is vegetarian.\n   why: a standing preference\n\n' +
        'Send /memory accept N to move a line, /memory dismiss N to keep it where it is.',
    );
    expect((await send('/memory accept 1')).text).toBe(
      'Moved "- Prefers short answers." from MEMORY.md to USER.md.',
    );
    expect(read('USER.md')).toContain('- Prefers short answers.\n');
    expect(read('MEMORY.md')).not.toContain('Prefers short answers');
    expect((await send('/memory')).text).toContain('1 memory proposal waits: /memory proposals');
    expect((await send('/memory dismiss 2')).text).toBe(
      'Dismissed: "- Ana is vegetarian." stays in MEMORY.md and will not be proposed for AGENTS.md again.',
    );
    expect(read('MEMORY.md')).toContain('- Ana is vegetarian.');
    expect((await send('/memory')).text).not.toMatch(/proposal/);
  });

  it('answers an unknown id, one decided already and a bad id, changing nothing', async () => {
    const { send, propose, read } = compose();
    propose('- Prefers short answers.');
    expect((await send('/memory accept 9')).text).toBe('There is no memory proposal 9.');
    for (const bad of ['/memory accept', '/memory accept one', '/memory dismiss 0', '/memory accept 1 2'])
      expect((await send(bad)).text).toMatch(/^Usage: \/memory (accept|dismiss) N/);
    expect(read('MEMORY.md')).toBe(MEMORY);
    expect((await send('/memory dismiss 1')).text).toMatch(/^Dismissed/);
    expect((await send('/memory accept 1')).text).toBe('Memory proposal 1 was dismissed already.');
    expect(read('MEMORY.md')).toBe(MEMORY);
  });

  it('is the owner’s alone: a stranger cannot list, accept or dismiss', async () => {
    const { send, propose, read, stores } = compose();
    propose('- Prefers short answers.');
    for (const text of ['/memory proposals', '/memory accept 1', '/memory dismiss 1'])
      expect((await send(text, false)).text).toBe('That command is only available to the owner.');
    expect(read('MEMORY.md')).toBe(MEMORY);
    expect(stores.memoryProposals.list('pending')).toHaveLength(1);
  });
});
