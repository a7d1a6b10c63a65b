import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, cliEnv, makeHome, runCli, startWren, waitFor } from '../support/wren-home.js';

/** `wren chat` reading a stdin that stays open (a terminal left open), its output collected. */
function openChat(env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [CLI, 'chat'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  opened.push(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    /** Ends stdin (as Ctrl+D does) and resolves with the exit code. */
    close: async () => {
      child.stdin.end();
      return exited;
    },
  };
}

const TOKEN = 'chat-token-0123456789';
/** A model nothing here calls (notify reminders need none), so `wren chat` has one to start with. */
const MODEL =
  'models:\n  - name: idle\n    protocol: openai\n    base_url: http://127.0.0.1:9/v1\n    model: never-called\n';

const opened: Array<() => void> = [];
afterEach(() => {
  for (const close of opened.splice(0)) close();
});

describe('a reminder added from the shell reaches the open terminal chat', () => {
  it('when the chat is attached to wren start', async () => {
    const env = cliEnv(makeHome(MODEL), { WREN_GATEWAY_TOKEN: TOKEN });
    const wren = await startWren(env);
    try {
      const chat = openChat(env);
      // Attached once the gateway counts the terminal as connected (its event stream is open).
      await waitFor(async () => {
        const status = await fetch(`${wren.url}/api/status`, {
          headers: { authorization: `Bearer ${TOKEN}` },
        });
        return ((await status.json()) as { connected: string[] }).connected.includes('cli');
      }, 15_000);
      const added = await runCli(['reminder', 'add', 'stretch your legs', '--in', '1s'], env);
      expect(added.code, added.stderr).toBe(0);
      await waitFor(() => chat.stdout().includes('⏰ stretch your legs'), 15_000);
      expect(await chat.close()).toBe(0);
      // Shown once, never run as a message.
      expect(chat.stdout().split('⏰ stretch your legs')).toHaveLength(2);
    } finally {
      await wren.stop();
    }
  });

  it('when the chat runs alone (it runs the scheduler)', async () => {
    const env = cliEnv(makeHome(MODEL));
    const added = await runCli(['reminder', 'add', 'drink water', '--in', '3s'], env);
    expect(added.code, added.stderr).toBe(0);
    const chat = openChat(env);
    await waitFor(() => chat.stdout().includes('⏰ drink water'), 15_000);
    expect(await chat.close()).toBe(0);
    const listed = await runCli(['reminder', 'list', '--all', '--json'], env);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ text: 'drink water', status: 'done', fired: 1 }]);
  });
});
