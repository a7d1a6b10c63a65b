import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/create-app.js';
import { noModelHelp } from '../../src/cli/no-model-help.js';
import { findLocalEndpoint } from '../../src/llm/find-local-endpoint.js';
import { probeLocalModels } from '../../src/llm/probe-local-models.js';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/fake-llm-server.js';

let llm: FakeLlmServer;
beforeAll(async () => {
  llm = await startFakeLlmServer({ models: ['llama3.1', 'qwen2.5'] });
});
afterAll(() => llm.close());

const probeFake = (kind: 'ollama' | 'openai') => () =>
  probeLocalModels({
    targets: [{ preset: kind === 'ollama' ? 'ollama' : 'lmstudio', baseUrl: llm.baseUrls.openai, kind }],
  });

describe('local model fallback', () => {
  it('finds a local server, offers its first model and chats through it', async () => {
    const found = await findLocalEndpoint(probeFake('ollama'));
    expect(found?.endpoint).toMatchObject({
      protocol: 'openai',
      baseUrl: llm.baseUrls.openai,
      model: 'llama3.1',
      name: 'local-ollama',
    });
    const home = join(mkdtempSync(join(tmpdir(), 'wren-local-')), 'home');
    const app = await createApp({ home, fallbackEndpoints: [found!.endpoint] });
    try {
      llm.script({ text: 'hello from the local model' });
      const reply = await app.bus.request({
        id: '1',
        channel: 'cli',
        senderId: 'o',
        chatId: 'c',
        text: 'hi',
      });
      expect(reply.text).toBe('hello from the local model');
      expect(llm.lastRequest?.model).toBe('llama3.1');
    } finally {
      await app.close();
    }
  });

  it('returns nothing when no server answers or none offers a model', async () => {
    expect(await findLocalEndpoint(async () => [])).toBeUndefined();
    expect(
      await findLocalEndpoint(async () => [{ preset: 'vllm', baseUrl: 'http://127.0.0.1:1/v1', models: [] }]),
    ).toBeUndefined();
  });

  it('explains how to add a model, naming the home', () => {
    const help = noModelHelp('/home/ann/.wren');
    expect(help).toMatch(/wren onboard/);
    expect(help).toMatch(/\/home\/ann\/\.wren\/config\.yaml/);
    expect(help).toMatch(/Ollama :11434, LM Studio :1234, llama\.cpp :8080, vLLM :8000/);
  });
});
