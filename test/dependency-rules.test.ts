import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const depcruise = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

/**
 * Cruises probe files with the project's own .dependency-cruiser.cjs in a scratch copy of the layout (with
 * this tree's node_modules, so packages resolve), and returns `rule from → to` per violation: a rule that never
 * fires would let a forbidden import through unnoticed.
 */
function cruise(files: Record<string, string>): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'wren-deps-'));
  copyFileSync(join(root, '.dependency-cruiser.cjs'), join(dir, '.dependency-cruiser.cjs'));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true },
      include: ['src'],
    }),
  );
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const run = spawnSync(
    process.execPath,
    [depcruise, 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'],
    { cwd: dir, encoding: 'utf8' },
  );
  const result = JSON.parse(run.stdout) as { summary: { violations: Violation[] } };
  return (
    result.summary.violations
      // A package resolves through the node_modules link to its real path: show it from node_modules/ on.
      .map(
        (violation) =>
          `${violation.rule.name} ${violation.from} → ${violation.to.replace(/^.*?node_modules\//, 'node_modules/')}`,
      )
      .sort()
  );
}

const uses = (path: string, name = 'value') =>
  `import { ${name} } from '${path}';\nexport const probe = ${name};\n`;
const value = 'export const value = 1;\n';

describe('dependency rules (.dependency-cruiser.cjs)', () => {
  it('fires each layer rule on a forbidden import and lets the allowed ones through', () => {
    const found = cruise({
      'src/util/leaf.ts': uses('../llm/model.js'),
      'src/llm/model.ts': uses('../agent/loop.js'),
      'src/agent/loop.ts': uses('../store/rows.js'),
      'src/channels/chat.ts': uses('../agent/agent-runtime.js'),
      'src/agent/agent-runtime.ts': value,
      'src/cli/command.ts': uses('../store/rows.js'),
      'src/gateway/route.ts': uses('../store/rows.js'),
      'src/memory/search.ts':
        "import type { Database } from 'better-sqlite3';\nexport type Probe = Database;\n",
      'src/store/rows.ts': uses('../proactive/goal-rules.js'),
      'src/proactive/goal-rules.ts': value,
      'src/gate/check.ts': uses('../shell/lexer.js'),
      'src/shell/lexer.ts': value,
      'src/app/create-app.ts': uses('../cli/command.js', 'probe'),
      // Allowed: the faces through services, the shell through its index, SQLite and util inside store.
      'src/cli/ok.ts': uses('../services/reminders.js'),
      'src/services/reminders.ts': value,
      'src/tools/ok.ts': uses('../shell/index.js'),
      'src/shell/index.ts': "export { value } from './lexer.js';\n",
      'src/store/ok.ts': `import type { Database } from 'better-sqlite3';\nimport { value } from '../util/clock.js';\nexport type Probe = Database;\nexport const probe = value;\n`,
      'src/util/clock.ts': value,
    });
    expect(found).toEqual(
      [
        'agent-below-faces-and-store src/agent/loop.ts → src/store/rows.ts',
        'app-imports-no-cli src/app/create-app.ts → src/cli/command.ts',
        'channels-never-import-the-agent src/channels/chat.ts → src/agent/agent-runtime.ts',
        'faces-never-import-store src/cli/command.ts → src/store/rows.ts',
        'faces-never-import-store src/gateway/route.ts → src/store/rows.ts',
        'llm-at-the-bottom src/llm/model.ts → src/agent/loop.ts',
        'shell-through-its-index src/gate/check.ts → src/shell/lexer.ts',
        'sqlite-only-in-store src/memory/search.ts → node_modules/better-sqlite3/lib/index.js',
        'store-imports-no-domain src/store/rows.ts → src/proactive/goal-rules.ts',
        'util-is-a-leaf src/util/leaf.ts → src/llm/model.ts',
      ].sort(),
    );
  });

  it('finds an import cycle even when one side imports only a type', () => {
    const found = cruise({
      'src/memory/a.ts': "import type { B } from './b.js';\nexport interface A { b?: B }\n",
      'src/memory/b.ts': "import type { A } from './a.js';\nexport interface B { a?: A }\n",
    });
    expect(found).toEqual(['no-cycles src/memory/a.ts → src/memory/b.ts']);
  });
});
