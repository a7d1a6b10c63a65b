import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { platforms } from '../../src/channels/platform-registry.js';
import { cliEnv, makeHome, type RunningWren, startWren, waitFor } from '../support/wren-home.js';

const running: RunningWren[] = [];
afterEach(async () => {
  for (const wren of running.splice(0)) await wren.stop();
});

/**
 * A preload for the real CLI that writes down every module the process loads: each ESM resolution (through a
 * module hook, which also sees `import()` of CommonJS packages) and, at exit, every `require`d file.
 */
function loadRecorder(home: string): { env: Record<string, string>; loaded: () => string[] } {
  const log = join(home, 'loaded.txt');
  const hook = `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const found = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, found.url + '\\n');
  return found;
}`;
  const preload = join(home, 'record-loads.mjs');
  writeFileSync(
    preload,
    `import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));
const require = createRequire(import.meta.url);
process.on('exit', () => appendFileSync(${JSON.stringify(log)}, Object.keys(require.cache).join('\\n') + '\\n'));
`,
  );
  return {
    env: { NODE_OPTIONS: `--import=${preload}` },
    loaded: () => readFileSync(log, 'utf8').split('\n').filter(Boolean),
  };
}

/** The platform SDK packages (`node_modules/<name>/`) among `files`. */
function sdksIn(files: string[]): string[] {
  const names = platforms.flatMap((platform) => Object.keys(platform.sdk ?? {}));
  return names.filter((name) => files.some((file) => file.includes(`/node_modules/${name}/`)));
}

describe('platform SDKs load only when their channel is configured', () => {
  it('`wren start` with no chat platform loads none of them; with Matrix configured it loads matrix-js-sdk', async () => {
    const bare = makeHome('models: []\n');
    const bareLoads = loadRecorder(bare);
    const plain = await startWren(cliEnv(bare, bareLoads.env));
    running.push(plain);
    expect(await (await fetch(`${plain.url}/api/health`)).json()).toMatchObject({ ok: true });
    await plain.stop();
    running.splice(0);
    const files = bareLoads.loaded();
    // The recorder sees both kinds of module (else an empty answer below would prove nothing).
    expect(files.some((file) => file.includes('/node_modules/better-sqlite3/'))).toBe(true);
    expect(files.some((file) => file.includes('/node_modules/hono/'))).toBe(true);
    expect(sdksIn(files)).toEqual([]);

    // Nothing listens on port 9: the channel keeps reconnecting, which is enough for its SDK to load.
    const matrix = makeHome(
      [
        'channels:',
        '  matrix:',
        '    homeserver: http://127.0.0.1:9',
        '    access_token: syt_x',
        '    owner: ["@me:x"]',
      ].join('\n'),
    );
    const matrixLoads = loadRecorder(matrix);
    const withMatrix = await startWren(cliEnv(matrix, matrixLoads.env));
    running.push(withMatrix);
    await waitFor(() => sdksIn(matrixLoads.loaded()).includes('matrix-js-sdk'), 20_000);
    await withMatrix.stop();
    running.splice(0);
    expect(sdksIn(matrixLoads.loaded())).toEqual(['matrix-js-sdk']);
  }, 60_000);
});
