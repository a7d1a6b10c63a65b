import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/create-app.js';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/fake-llm-server.js';

let llm: FakeLlmServer;
const KEY = 'sk-model-key-ABCDEFGH12345';
beforeAll(async () => {
  llm = await startFakeLlmServer({ apiKey: KEY });
});
afterAll(() => llm.close());

describe('secrets in tool output', () => {
  it('never reach the model: model keys and .env values are redacted from tool results', async () => {
    const home = join(mkdtempSync(join(tmpdir(), 'wren-secret-')), 'home');
    mkdirSync(home);
    writeFileSync(
      join(home, 'config.yaml'),
      `models:\n  - name: main\n    protocol: openai\n    base_url: ${llm.baseUrls.openai}\n    api_key: \${MAIN_KEY}\n    model: m\n`,
    );
    writeFileSync(join(home, '.env'), `MAIN_KEY=${KEY}\nOTHER_TOKEN=ghp_0123456789abcdefXYZ\nPORT=7777\n`, {
      mode: 0o600,
    });
    const app = await createApp({ home, env: { PATH: process.env['PATH'] } });
    try {
      writeFileSync(
        join(app.config().workspace, 'leak.txt'),
        `key=${KEY} token=ghp_0123456789abcdefXYZ port=7777`,
      );
      llm.script(
        { toolCalls: [{ name: 'read_file', arguments: { path: 'leak.txt' } }] },
        { text: 'read it' },
      );
      const reply = await app.bus.request({
        id: '1',
        channel: 'cli',
        senderId: 'owner',
        fromOwner: true,
        chatId: 'c',
        text: 'read leak.txt',
      });
      expect(reply.text).toBe('read it');
      const sent = JSON.stringify(llm.lastRequest?.body.messages);
      expect(sent).toContain('port=7777');
      expect(sent).not.toContain(KEY);
      expect(sent).not.toContain('ghp_0123456789abcdefXYZ');
      expect(sent).toContain('[redacted]');
    } finally {
      await app.close();
    }
  });
});
