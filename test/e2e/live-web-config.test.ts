import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ToolContext } from '../../src/agent/tool.js';
import { createApp } from '../../src/app/create-app.js';
import { waitFor } from '../support/wren-home.js';

describe('live config for the web tools', () => {
  it('a web.search edit applies without a restart', async () => {
    const home = join(mkdtempSync(join(tmpdir(), 'wren-liveweb-')), 'home');
    mkdirSync(home);
    writeFileSync(join(home, 'config.yaml'), 'log:\n  level: warn\n');
    const app = await createApp({ home, watch: true, env: { PATH: process.env['PATH'] } });
    const registry = (
      app.runtime as unknown as {
        options: { registry: import('../../src/agent/tool-registry.js').ToolRegistry };
      }
    ).options.registry;
    const ctx: ToolContext = {
      sessionId: 's',
      channel: 'cli',
      chatId: 'c',
      senderId: 'owner',
      isOwner: true,
      interactive: false,
      workspace: app.config().workspace,
    };
    const search = async () => {
      const outcome = await registry.invoke(
        { id: '1', name: 'web_search', arguments: '{"query":"wren"}' },
        ctx,
        new AbortController().signal,
      );
      return outcome.result.content;
    };
    try {
      const before = await search();
      expect(before).toMatch(/^Web search is not configured/);
      writeFileSync(
        join(home, 'config.yaml'),
        'log:\n  level: warn\nweb:\n  search:\n    provider: searxng\n    base_url: http://127.0.0.1:9\n  fetch:\n    allow: ["127.0.0.1:9"]\n',
      );
      await waitFor(async () => {
        const after = await search();
        return /127\.0\.0\.1:9 refused/.test(after);
      }, 8000);
    } finally {
      await app.close();
    }
  });
});
