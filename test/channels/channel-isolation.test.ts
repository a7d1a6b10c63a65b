import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/create-app.js';
import { startFakeSlack } from '../fakes/fake-slack-server.js';
import { startFakeTelegram } from '../fakes/fake-telegram-server.js';
import { ScriptedModel } from '../support/scripted-model.js';
import { makeHome, waitFor } from '../support/wren-home.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('channels side by side', () => {
  it('one channel failing (a refused token) leaves the others working, and the status says which', async () => {
    const telegram = await startFakeTelegram({ token: '1:right-token' });
    const slack = await startFakeSlack({ botToken: 'xoxb-ok-1', appToken: 'xapp-ok-1' });
    cleanups.push(
      () => telegram.close(),
      () => slack.close(),
    );
    const home = makeHome(
      [
        'channels:',
        '  telegram:',
        '    token: "2:refused-token"',
        '    owner: [42]',
        `    api_root: ${telegram.apiRoot}`,
        '  slack:',
        '    bot_token: xoxb-ok-1',
        '    app_token: xapp-ok-1',
        '    owner: [U0OWNER01]',
        `    api_url: ${slack.apiUrl}`,
      ].join('\n'),
    );
    const model = new ScriptedModel().script({ text: 'still here on Slack' });
    const app = await createApp({
      home,
      model,
      probeLocalModels: false,
      channels: true,
      env: { PATH: process.env['PATH'] },
    });
    cleanups.push(() => app.close(1000));
    const state = (name: string) => app.channels.status().find((status) => status.name === name)?.state;
    await waitFor(() => state('telegram') === 'failed' && state('slack') === 'connected');
    slack.message({ user: 'U0OWNER01', channel: 'D0OWNERDM', text: 'hi' });
    await waitFor(() => slack.sent().some((call) => call.body['text'] === 'still here on Slack'));
    // Only a connected face counts for deliveries: what is due for Telegram waits instead of vanishing.
    expect(app.bus.deliveringChannels()).toContain('slack');
    expect(app.bus.deliveringChannels()).not.toContain('telegram');
  });
});
