import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const biome = join(root, 'node_modules', '.bin', 'biome');

/**
 * Lints probe files with the project's own biome.json in a scratch copy of the layout, so the layer rules are
 * shown to fire (a rule that never fires would let a forbidden import through unnoticed).
 */
function lint(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'wren-layers-'));
  const config = JSON.parse(readFileSync(join(root, 'biome.json'), 'utf8')) as Record<string, unknown>;
  config['vcs'] = { enabled: false };
  writeFileSync(join(dir, 'biome.json'), JSON.stringify(config));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const run = spawnSync(biome, ['lint', '--max-diagnostics=100', 'src'], { cwd: dir, encoding: 'utf8' });
  return `${run.stdout}${run.stderr}`;
}

const importsAgent = (path: string) =>
  `import { AgentRuntime } from '${path}';\nexport const probe = AgentRuntime;\n`;
const importsBus = (path: string) =>
  `import { MessageBus } from '${path}';\nexport const probe = MessageBus;\n`;

describe('layer rules (biome.json)', () => {
  it('refuses an agent import in channels, the gateway and the CLI, and lets bus imports pass', () => {
    const output = lint({
      'src/channels/telegram/probe.ts': importsAgent('../../agent/agent-runtime.js'),
      'src/channels/probe.ts': importsAgent('../agent/agent-runtime.js'),
      'src/gateway/probe.ts': importsAgent('../agent/agent-runtime.js'),
      'src/cli/commands/probe.ts': importsAgent('../../agent/agent-runtime.js'),
      'src/channels/clean.ts': importsBus('../bus/message-bus.js'),
      'src/gateway/clean.ts': importsBus('../bus/message-bus.js'),
    });
    const flagged = [...output.matchAll(/^(src\/\S+?):\d+:\d+ lint\/style\/noRestrictedImports/gm)].map(
      (match) => match[1],
    );
    expect(flagged.sort()).toEqual([
      'src/channels/probe.ts',
      'src/channels/telegram/probe.ts',
      'src/cli/commands/probe.ts',
      'src/gateway/probe.ts',
    ]);
    expect(output).toContain('channels, the gateway and the CLI never import the agent');
  });

  it('keeps the older rules: llm imports nothing else, agent only llm, bus and util', () => {
    const output = lint({
      'src/llm/probe.ts': importsBus('../bus/message-bus.js'),
      'src/agent/probe.ts': "import { x } from '../gate/create-gate.js';\nexport const probe = x;\n",
    });
    expect(output).toContain('src/llm imports nothing else from src/');
    expect(output).toContain('src/agent imports only src/llm, src/bus and src/util');
  });
});
