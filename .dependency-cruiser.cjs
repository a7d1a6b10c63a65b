/**
 * Wren's layer rules (DESIGN.md §2), checked by `npm run deps` inside `npm test`. Type-only imports count
 * (tsPreCompilationDeps), so a type that sits in the wrong file shows up as the cycle or arrow it is.
 * test/dependency-rules.test.ts shows each rule firing on a probe.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'Imports flow one way: no module may reach itself again, type-only imports included.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'llm-at-the-bottom',
      comment: 'src/llm imports nothing else from src/ but util/.',
      severity: 'error',
      from: { path: '^src/llm/' },
      to: { path: '^src/', pathNot: ['^src/llm/', '^src/util/'] },
    },
    {
      name: 'util-is-a-leaf',
      comment: 'src/util imports nothing else from src/.',
      severity: 'error',
      from: { path: '^src/util/' },
      to: { path: '^src/', pathNot: '^src/util/' },
    },
    {
      name: 'agent-below-faces-and-store',
      comment: 'The agent loop knows no face (channels, gateway, CLI), no storage and no composition root.',
      severity: 'error',
      from: { path: '^src/agent/' },
      to: { path: '^src/(channels|gateway|cli|store|app)' },
    },
    {
      name: 'channels-never-import-the-agent',
      comment: 'Channels and the agent meet only on the bus.',
      severity: 'error',
      from: { path: '^src/(channels|gateway|cli)/' },
      to: { path: '^src/agent/(agent-runtime|run-turn|prepare-turn|context-builder)' },
    },
    {
      name: 'faces-never-import-store',
      comment: 'The CLI and the gateway reach storage through app/ and services/, never store/ itself.',
      severity: 'error',
      from: { path: '^src/(cli|gateway)/' },
      to: { path: '^src/store/' },
    },
    {
      name: 'sqlite-only-in-store',
      comment:
        'Nothing outside store/ imports better-sqlite3: the storage ports keep a second backend possible.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/store/' },
      to: { path: 'node_modules/better-sqlite3/' },
    },
    {
      name: 'store-imports-no-domain',
      comment:
        'store/ holds persistence only: besides util/ it may name the data types and ports of the layers below ' +
        '(llm/types, bus/messages, the SessionStore port of agent/), never a domain module or anything above.',
      severity: 'error',
      from: { path: '^src/store/' },
      to: {
        path: '^src/',
        pathNot: [
          '^src/store/',
          '^src/util/',
          '^src/llm/types\\.ts$',
          '^src/bus/messages\\.ts$',
          '^src/agent/session-store\\.ts$',
        ],
      },
    },
    {
      name: 'shell-through-its-index',
      comment: 'The shell analyser is used only through src/shell/index.ts.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/shell/' },
      to: { path: '^src/shell/', pathNot: '^src/shell/index\\.ts$' },
    },
    {
      name: 'app-imports-no-cli',
      comment: 'The composition root does not depend on the CLI that uses it.',
      severity: 'error',
      from: { path: '^src/app' },
      to: { path: '^src/cli/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.tsx?$|^src/.*/test-support/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
