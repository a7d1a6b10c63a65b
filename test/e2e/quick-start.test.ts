import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { type CliResult, cliEnv, makeHome, waitFor } from '../support/wren-home.js';

/**
 * The README's quick start in a clean clone of this repository's HEAD, as written: its commands must reach a
 * first answer and never rebuild dist/ behind the owner's back (`npx wren` in a clone did: a silent 15-80 s
 * build rewriting dist/ under the running gateway). The clone shares this tree's node_modules by symlink; its
 * build is the one `npm ci` runs (`prepare`).
 */
const REPO = resolve('.');
const BUILD_MS = 120_000;

let clone: string;
let llm: FakeLlmServer;

/** The shell blocks of the README's "Quick start" section, one command line each (comments dropped). */
function quickStartBlocks(): string[][] {
  const readme = readFileSync(join(clone, 'README.md'), 'utf8');
  const section = readme.slice(
    readme.indexOf('## Quick start'),
    readme.indexOf('\n## ', readme.indexOf('## Quick start') + 1),
  );
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((block) =>
    block[1]!
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter(Boolean),
  );
}

/** Every file under dist/ with its content hash and modification time. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else {
        const hash = createHash('sha256').update(readFileSync(path)).digest('hex');
        files[relative(dir, path)] = `${hash} ${statSync(path).mtimeMs}`;
      }
    }
  };
  walk(dir);
  return files;
}

/** Runs one README line through the shell, in the clone, to completion. */
function shell(line: string, env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((done, fail) => {
    const child = spawn('sh', ['-c', line], { cwd: clone, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  llm = await startFakeLlmServer();
  clone = join(mkdtempSync(join(tmpdir(), 'wren-clone-')), 'wren');
  execFileSync('git', ['clone', '--quiet', REPO, clone]);
  symlinkSync(join(REPO, 'node_modules'), join(clone, 'node_modules'));
  // What `npm ci` runs after installing: the `prepare` script, which builds.
  execFileSync('npm', ['run', '--silent', 'prepare'], {
    cwd: clone,
    env: { ...process.env, NODE_ENV: 'production', npm_command: 'ci' },
    stdio: 'ignore',
  });
}, BUILD_MS);
afterAll(async () => {
  await llm?.close();
  if (clone) rmSync(resolve(clone, '..'), { recursive: true, force: true });
});

describe('the quick start, in a clean clone', () => {
  it('is two commands, then the next steps run the clone’s own CLI (no npx)', () => {
    const [first, next] = quickStartBlocks();
    expect(first).toEqual(['npm ci && npm start', 'npm test']);
    expect(next!.length).toBeGreaterThan(0);
    for (const line of next!) expect(line).toMatch(/^\.\/wren /);
  });

  it('reaches a first answer through the running gateway and leaves dist/ as built', async () => {
    const built = snapshot(join(clone, 'dist'));
    const home = makeHome(
      `models:\n  - name: main\n    protocol: openai\n    base_url: ${llm.baseUrls.openai}\n    model: fake-model\ngateway:\n  port: 0\n`,
    );
    const env = cliEnv(home);
    const [first, next] = quickStartBlocks();
    const start = first![0]!.split('&&')[1]!.trim();
    let gateway: ChildProcess | undefined;
    let banner = '';
    try {
      // `npm start`, as written (npm ci already ran: the clone is installed and built).
      gateway = spawn('sh', ['-c', start], {
        cwd: clone,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      gateway.stdout!.on('data', (chunk: Buffer) => {
        banner += chunk.toString();
      });
      await waitFor(() => banner.includes('Listening on'), 30_000);
      expect(banner).toContain('`./wren chat`');
      const ask = next!.find((line) => / chat -m /.test(line))!;
      llm.script({ text: 'Your workspace has SOUL.md, USER.md and AGENTS.md.' });
      const answer = await shell(ask, env);
      expect(answer.stderr).toBe('');
      expect(answer.code).toBe(0);
      expect(JSON.parse(answer.stdout)).toMatchObject({
        reply: 'Your workspace has SOUL.md, USER.md and AGENTS.md.',
      });
      expect(llm.lastRequest?.lastUserText).toMatch(/What is in my workspace\?$/);
      const reminder = next!.find((line) => / reminder add /.test(line))!;
      const added = await shell(reminder, env);
      expect(added.code).toBe(0);
      // The interactive lines start the same CLI: each answers --help at once.
      for (const line of next!.filter((text) => text !== ask && text !== reminder)) {
        const help = await shell(`${line} --help`, env);
        expect(help.code).toBe(0);
        expect(help.stdout).toMatch(/^Usage: wren /);
      }
    } finally {
      if (gateway?.pid) process.kill(-gateway.pid, 'SIGTERM');
      await new Promise((done) => (gateway?.exitCode !== null ? done(null) : gateway.once('exit', done)));
    }
    expect(snapshot(join(clone, 'dist'))).toEqual(built);
  }, 60_000);

  it('an `npx wren` out of habit does not rebuild an existing dist/ either (prepare under npm exec)', () => {
    const built = snapshot(join(clone, 'dist'));
    const output = execFileSync(process.execPath, ['scripts/prepare.mjs'], {
      cwd: clone,
      env: { ...process.env, npm_command: 'exec' },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(output).toBe('');
    expect(snapshot(join(clone, 'dist'))).toEqual(built);
  });

  it('no README, doc or printed hint says `npx wren`', () => {
    const files = execFileSync('git', ['ls-files', 'README.md', 'docs', 'src', 'web/src'], {
      encoding: 'utf8',
    })
      .split('\n')
      .filter(Boolean);
    const offenders = files.filter((file) => /npx wren [a-z]/.test(readFileSync(join(clone, file), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('npm ci has no install script to warn about: each is allowed or denied in allowScripts', () => {
    // protobufjs (a dev dependency of a fake server) is denied: its postinstall only warns about its
    // version scheme.
    const listed = execFileSync('npm', ['install-scripts', 'ls'], { encoding: 'utf8' });
    expect(listed.trim()).toBe('No packages with unreviewed install scripts.');
  });
});
