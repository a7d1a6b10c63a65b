import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryFixture, SplitModel, testMemoryConfig } from '../../test/support/memory-kit.js';
import { ContextBuilder } from '../agent/context-builder.js';
import type { ToolContext } from '../agent/tool.js';
import { openStores } from '../store/open-stores.js';
import { SqliteSessionStore } from '../store/sqlite-session-store.js';
import { createFileTools } from '../tools/file-tools.js';
import { createMemory } from './create-memory.js';
import {
  instructionPath,
  isInstructionFile,
  observeInstructionFile,
  readInstructionFile,
  recordToolWrite,
  updateInstructionFile,
  writeInstructionFile,
} from './file-history.js';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

function setup() {
  const fixture = memoryFixture();
  const stores = openStores(fixture.db);
  cleanup = () => {
    fixture.db.close();
    rmSync(fixture.dir, { recursive: true, force: true });
  };
  const log = (path: string) =>
    stores.fileVersions.list({ path }).map(({ author, note }) => (note ? `${author}: ${note}` : author));
  return { ...fixture, versions: stores.fileVersions, stores, log };
}

describe('file history', () => {
  it('names the instruction files and nothing else', () => {
    for (const path of [
      'MEMORY.md',
      'USER.md',
      'SOUL.md',
      'AGENTS.md',
      'HEARTBEAT.md',
      'skills/tea/SKILL.md',
    ])
      expect(isInstructionFile(path)).toBe(true);
    for (const path of [
      'HISTORY.md',
      'notes.md',
      'skills/SKILL.md',
      'skills/a/b/SKILL.md',
      'skills/../SKILL.md',
    ])
      expect(isInstructionFile(path)).toBe(false);
    expect(instructionPath('/w', '/w/skills/tea/SKILL.md')).toBe('skills/tea/SKILL.md');
    expect(instructionPath('/w', '/elsewhere/MEMORY.md')).toBeUndefined();
  });

  it('records each write by its author, an identical write not at all', async () => {
    const { workspace, versions, log } = setup();
    const write = (content: string, author: string) =>
      writeInstructionFile({ workspace, path: 'USER.md', content, author, note: 'n', versions });
    const first = await write('# Owner\nAna\n', 'web');
    await write('# Owner\nAna\n', 'cli');
    await write('# Owner\nAna, Lisbon\n', 'cli');
    // The starter USER.md the workspace began with is the baseline, seen at the first write.
    expect(log('USER.md')).toEqual(['cli: n', 'web: n', 'disk: first seen']);
    expect(first.version?.content).toBe('# Owner\nAna\n');
  });

  it('records an edit made on disk by the next read, and an unchanged re-read writes nothing', () => {
    const { workspace, versions, log } = setup();
    const path = join(workspace, 'SOUL.md');
    readInstructionFile({ workspace, path: 'SOUL.md', versions });
    writeFileSync(path, '# Soul\nBe terse.\n');
    expect(readInstructionFile({ workspace, path: 'SOUL.md', versions })).toBe('# Soul\nBe terse.\n');
    observeInstructionFile({ workspace, path: 'SOUL.md', versions });
    readInstructionFile({ workspace, path: 'SOUL.md', versions });
    expect(log('SOUL.md')).toEqual(['disk: changed on disk', 'disk: first seen']);
    expect(versions.latest('SOUL.md')?.content).toBe('# Soul\nBe terse.\n');
  });

  it('gives a hand edit made before an update its own disk version, never the writer’s name', async () => {
    const { workspace, versions, log } = setup();
    await writeInstructionFile({
      workspace,
      path: 'MEMORY.md',
      content: '# Memory\n',
      author: 'web',
      versions,
    });
    writeFileSync(join(workspace, 'MEMORY.md'), '# Memory\n- hand fact\n');
    await updateInstructionFile(
      { workspace, path: 'MEMORY.md', author: 'consolidation', versions },
      (current) => `${current}- model fact\n`,
    );
    expect(log('MEMORY.md')).toEqual(['consolidation', 'disk: changed on disk', 'web', 'disk: first seen']);
    expect(versions.latest('MEMORY.md')?.content).toBe('# Memory\n- hand fact\n- model fact\n');
  });

  it('does not record a missing file, and writes without a store', async () => {
    const { workspace, versions } = setup();
    rmSync(join(workspace, 'HEARTBEAT.md'));
    observeInstructionFile({ workspace, path: 'HEARTBEAT.md', versions });
    expect(readInstructionFile({ workspace, path: 'skills/none/SKILL.md', versions })).toBe('');
    expect(versions.list()).toEqual([]);
    mkdirSync(join(workspace, 'skills', 'tea'), { recursive: true });
    const written = await writeInstructionFile({
      workspace,
      path: 'skills/tea/SKILL.md',
      content: 'x',
      author: 'cli',
    });
    expect(written).toEqual({ changed: true, text: 'x' });
    expect(versions.list()).toEqual([]);
  });

  it('records the owner’s edit of a prompt file at the next turn’s prompt, once', async () => {
    const { workspace, stores, db, log } = setup();
    const memory = createMemory({
      stores,
      store: new SqliteSessionStore(db),
      model: new SplitModel(),
      workspace: () => workspace,
      config: () => testMemoryConfig(),
      historyBudget: () => 10_000,
      env: { PATH: '' },
    });
    await memory.start();
    expect(log('skills/summarize-url/SKILL.md')).toEqual(['built-in']);
    const context = new ContextBuilder({ workspace, ...memory.contextOptions() });
    context.system();
    expect(log('MEMORY.md')).toEqual(['disk: first seen']);
    writeFileSync(join(workspace, 'MEMORY.md'), '# Memory\n- Ana drinks tea\n');
    mkdirSync(join(workspace, 'skills', 'tea'), { recursive: true });
    writeFileSync(
      join(workspace, 'skills', 'tea', 'SKILL.md'),
      '---\nname: tea\ndescription: brew\n---\nSteep.\n',
    );
    context.system();
    context.system();
    expect(log('MEMORY.md')).toEqual(['disk: changed on disk', 'disk: first seen']);
    expect(log('AGENTS.md')).toEqual(['disk: first seen']);
    expect(log('skills/tea/SKILL.md')).toEqual(['disk: first seen']);
    expect(log('skills/summarize-url/SKILL.md')).toEqual(['built-in']);
    await memory.close(0);
  });

  it('records the model’s write_file and edit_file of an instruction file by the tool, other files not', async () => {
    const { workspace, versions, log } = setup();
    const tools = createFileTools({ roots: () => [workspace], onFileWritten: recordToolWrite(versions) });
    const run = (name: string, args: Record<string, unknown>) =>
      tools
        .find((tool) => tool.name === name)!
        .execute(args, { sessionId: 's', isOwner: true } as ToolContext, new AbortController().signal);
    await run('write_file', { path: 'AGENTS.md', content: '# Standing instructions\n- Be brief.\n' });
    await run('edit_file', { path: 'AGENTS.md', old_text: 'Be brief.', new_text: 'Be very brief.' });
    await run('write_file', { path: 'notes.md', content: 'not an instruction file' });
    expect(log('AGENTS.md')).toEqual(['tool:edit_file', 'tool:write_file']);
    expect(versions.latest('AGENTS.md')?.content).toBe('# Standing instructions\n- Be very brief.\n');
    expect(versions.list().map((version) => version.path)).toEqual(['AGENTS.md', 'AGENTS.md']);
  });

  it('still returns the file when the history cannot be written (the reader never loses its file)', () => {
    const { workspace, versions, db } = setup();
    writeFileSync(join(workspace, 'HEARTBEAT.md'), '- check the mail\n');
    db.close();
    expect(readInstructionFile({ workspace, path: 'HEARTBEAT.md', versions })).toBe('- check the mail\n');
    observeInstructionFile({ workspace, path: 'HEARTBEAT.md', versions });
  });
});
