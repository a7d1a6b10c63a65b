import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { createApp, type WrenApp } from '../../src/app/create-app.js';
import { ScriptedModel } from '../support/scripted-model.js';
import { makeHome, waitFor } from '../support/wren-home.js';

const apps: WrenApp[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close(1000);
  for (const server of servers.splice(0)) await new Promise((closed) => server.close(closed));
});

/** A webhook target on 127.0.0.1 that keeps every body it is sent. */
async function webhookSink(): Promise<{ url: string; bodies: Array<{ text?: string; title?: string }> }> {
  const bodies: Array<{ text?: string; title?: string }> = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      bodies.push(JSON.parse(body) as { text?: string });
      response.writeHead(200).end('ok');
    });
  });
  servers.push(server);
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, bodies };
}

it('the morning briefing of a home runs once a day with one model call, also across a restart', async () => {
  const sink = await webhookSink();
  // A minute ago in UTC, so the day's briefing is due the moment the scheduler starts.
  const at = new Date(Date.now() - 60_000).toISOString().slice(11, 16);
  const home = makeHome(
    [
      'agent:',
      '  timezone: UTC',
      'proactive:',
      '  webhooks:',
      `    brief: { url: "${sink.url}" }`,
      'briefing:',
      `  at: "${at}"`,
      '  deliver_to: [webhook:brief]',
      '',
    ].join('\n'),
  );
  const model = new ScriptedModel().script({
    text: 'Good morning: nothing on today but the task "Water the plants".',
  });
  const first = await createApp({ home, model, probeLocalModels: false, env: {} });
  apps.push(first);
  expect(
    first.services.tasks.create({ title: 'Water the plants', due: new Date().toISOString().slice(0, 10) }).ok,
  ).toBe(true);
  expect(first.proactive.start()).toBe(true);
  await waitFor(() => sink.bodies.length === 1, 20_000);
  expect(sink.bodies[0]?.text).toBe('Good morning: nothing on today but the task "Water the plants".');
  expect(model.requests).toHaveLength(1);
  expect(JSON.stringify(model.requests[0]?.messages)).toContain('Water the plants');
  await first.close(1000);
  apps.splice(apps.indexOf(first), 1);

  const second = await createApp({ home, model, probeLocalModels: false, env: {} });
  apps.push(second);
  expect(second.proactive.start()).toBe(true);
  // The second process's scheduler ticked (it claims at start) and found the day's briefing claimed.
  await waitFor(() => second.nextDue() !== undefined);
  // Claims happen inside the tick, before the next wake-up is published: a second claim would show here.
  expect(second.proactive.outbox.runsOf('briefing', 'briefing')).toHaveLength(1);
  expect(second.proactive.outbox.feed().filter((entry) => entry.kind === 'briefing')).toHaveLength(1);
  expect(model.requests).toHaveLength(1);
  expect(sink.bodies).toHaveLength(1);
});
