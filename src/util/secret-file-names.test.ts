import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gateDatabase } from '../../test/support/gate-database.js';
import type { Tool, ToolContext } from '../agent/tool.js';
import { ToolRegistry } from '../agent/tool-registry.js';
import { createGate } from '../gate/create-gate.js';
import { gateSectionSchema, toGateConfig } from '../gate/gate-config.js';
import { openStores } from '../store/open-stores.js';
import { createExecTool } from '../tools/exec/exec-tool.js';
import { createFileTools } from '../tools/file-tools.js';
import { secretFileName } from './secret-file-names.js';

let workspace: string;
const ctx = (): ToolContext => ({
  sessionId: 's1',
  channel: 'cli',
  chatId: 'terminal',
  senderId: 'owner',
  isOwner: true,
  // Nobody can be asked: a call the gate would ask about is denied at once, so the test sees the ask.
  interactive: false,
  workspace,
});
const fileTool = (name: string): Tool =>
  createFileTools({ roots: () => [workspace] }).find((tool) => tool.name === name)!;
const exec = createExecTool({
  config: () => ({
    enabled: true,
    timeout: 60,
    maxTimeout: 600,
    sandbox: 'none',
    envAllow: [],
    outputCap: 10_000,
    logCapMb: 10,
  }),
});

beforeAll(() => {
  workspace = realpathSync(mkdtempSync(join(tmpdir(), 'wren-secret-write-')));
  mkdirSync(join(workspace, 'sub'));
  writeFileSync(join(workspace, '.env'), 'OPENAI_API_KEY=sk-owner\n');
  symlinkSync('.env', join(workspace, 'x.txt'));
});
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

describe('secretFileName', () => {
  it('knows the files that hold secrets, in any case', () => {
    for (const name of [
      ...['.env', '.ENV', '.Env', '.env.local', '.env.production', 'id_rsa', 'id_ed25519', 'ID_RSA'],
      ...['server.pem', 'tls.key', 'cert.p12', 'cert.pfx', '.netrc', '.npmrc', '.pgpass', 'credentials'],
      ...['credentials.json', '.git-credentials', 'kubeconfig', '.bash_history', 'id_ecdsa_sk'],
    ])
      expect(secretFileName(name), name).toBe(true);
  });

  it('leaves ordinary files, public keys and .env templates alone', () => {
    for (const name of [
      ...['notes.md', 'env.md', 'environment.ts', 'id_rsa.pub', 'known_hosts', '.env.example', '.env.sample'],
      ...['keys.md', 'monkey', 'credentials.md', 'pem', '.envrc'],
    ])
      expect(secretFileName(name), name).toBe(false);
  });
});

describe('write_file and edit_file onto a secret file, in auto mode', () => {
  const invoke = async (name: string, args: Record<string, unknown>, tools: Tool[]) => {
    const db = gateDatabase();
    const gate = createGate({
      config: () => toGateConfig(gateSectionSchema.parse({ mode: 'auto' })),
      stores: openStores(db),
    });
    const registry = new ToolRegistry();
    for (const tool of tools) registry.register(tool);
    try {
      const outcome = await registry.invoke(
        { id: 'c1', name, arguments: JSON.stringify(args) },
        ctx(),
        new AbortController().signal,
        gate.beforeToolCall,
        gate.afterToolCall,
      );
      return outcome.result.content;
    } finally {
      gate.close();
      db.close();
    }
  };
  const tools = () => [fileTool('write_file'), fileTool('edit_file'), exec];

  it('asks (denied here, where nobody can answer) and leaves the .env as it was', async () => {
    for (const path of ['.env', '.ENV', './sub/../.env', 'sub/../.env', 'x.txt', '.env.local', 'id_rsa']) {
      const content = await invoke('write_file', { path, content: 'OPENAI_API_KEY=sk-attacker\n' }, tools());
      expect(content, path).toMatch(/Danger signature: .*needs the owner's approval/);
      expect(content, path).toMatch(/writes a secret file/);
    }
    const edit = await invoke(
      'edit_file',
      { path: 'x.txt', old_text: 'sk-owner', new_text: 'sk-x' },
      tools(),
    );
    expect(edit).toMatch(/writes a secret file \(\.env\)/);
    for (const command of [
      'echo OPENAI_API_KEY=sk-attacker > .env',
      'printf x >> ./sub/../.env',
      'cp sub/planted .env',
      'mv sub/planted .ENV',
      'echo x | tee .env',
      "sed -i 's/sk-owner/sk-attacker/' .env",
      'echo x > x.txt',
      'cp sub/.env .',
      'cat sub/key > id_ed25519',
    ]) {
      const content = await invoke('exec', { command }, tools());
      expect(content, command).toMatch(/Danger signature: .*needs the owner's approval/);
      expect(content, command).toMatch(/writes a secret file/);
    }
    expect(readFileSync(join(workspace, '.env'), 'utf8')).toBe('OPENAI_API_KEY=sk-owner\n');
    expect(existsSync(join(workspace, '.env.local'))).toBe(false);
    expect(existsSync(join(workspace, 'id_rsa'))).toBe(false);
  });

  it('writes ordinary files unasked', async () => {
    expect(await invoke('write_file', { path: 'notes.md', content: 'hi\n' }, tools())).toMatch(
      /^Created notes\.md/,
    );
    expect(await invoke('write_file', { path: '.env.example', content: 'KEY=\n' }, tools())).toMatch(
      /^Created/,
    );
    expect(await invoke('exec', { command: 'echo ok > sub/out.txt && cat sub/out.txt' }, tools())).toMatch(
      /^ok/,
    );
    expect(readFileSync(join(workspace, 'notes.md'), 'utf8')).toBe('hi\n');
  });
});
