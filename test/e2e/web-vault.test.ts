import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startWebGateway, type WebGateway } from '../support/web-gateway.js';

const TOKEN = 'web-vault-token-0123456789abcdef';
const VALUE = 'typed-in-the-browser-5150';
let gateway: WebGateway;
let page: Page;
const sentBodies: string[] = [];

beforeAll(async () => {
  gateway = await startWebGateway({ answer: () => ({ text: 'ok' }), token: TOKEN });
  page = await (await gateway.browser.newContext()).newPage();
  page.on('request', (request) => {
    if (request.url().includes('/api/vault')) sentBodies.push(request.postData() ?? '');
  });
  const link = /web app: (http:\/\/\S+)/.exec(gateway.wren.stdout())?.[1];
  expect(link).toBeDefined();
  await page.goto(link!);
  await page.getByLabel('Message', { exact: true }).waitFor();
}, 60_000);

afterAll(async () => {
  await gateway?.browser.close();
  await gateway?.wren.stop();
  await gateway?.llm.close();
});

const vaultApi = async () =>
  (await (
    await fetch(`${gateway.wren.url}/api/vault`, { headers: { authorization: `Bearer ${TOKEN}` } })
  ).json()) as {
    secrets: Array<{ name: string; bindings: Record<string, string[]> }>;
  };

it('Settings → Vault adds a secret with a password field, lists it without its value, replaces and removes it', {
  timeout: 60_000,
}, async () => {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  const section = page.getByRole('region', { name: 'Vault' });
  await section.getByText('No secrets').waitFor();
  await section.getByRole('button', { name: 'Add a secret' }).click();
  const form = section.getByRole('form', { name: 'Add a secret' });
  // A bad name: the route's 400 under the form, nothing stored.
  await form.getByLabel('Name').fill('lower-case');
  await form.getByLabel('Value').fill(VALUE);
  await form.getByRole('button', { name: 'Save' }).click();
  await form
    .getByRole('alert')
    .getByText(/not a vault name/)
    .waitFor();
  expect(await form.getByLabel('Value').getAttribute('type')).toBe('password');
  await form.getByLabel('Name').fill('API_TOKEN');
  await form.getByLabel('Hosts it may be sent to').fill('api.example.com, *.example.org');
  await form.getByRole('button', { name: 'Save' }).click();
  await section.getByText('bound to hosts api.example.com, *.example.org').waitFor();
  await section.getByText('last used never').waitFor();
  expect(await page.content()).not.toContain(VALUE);
  expect((await vaultApi()).secrets).toEqual([
    expect.objectContaining({ name: 'API_TOKEN', bindings: { hosts: ['api.example.com', '*.example.org'] } }),
  ]);

  await section.getByRole('button', { name: 'Replace API_TOKEN' }).click();
  const replace = section.getByRole('form', { name: 'Replace API_TOKEN' });
  // The value is never shown back: the field starts empty.
  expect(await replace.getByLabel('Value').inputValue()).toBe('');
  await replace.getByLabel('Value').fill(`${VALUE}-2`);
  await replace.getByLabel('Programs exec may pass it to').fill('curl');
  await replace.getByRole('button', { name: 'Replace' }).click();
  await section.getByText('bound to hosts api.example.com, *.example.org; programs curl').waitFor();

  page.once('dialog', (dialog) => void dialog.accept());
  await section.getByRole('button', { name: 'Remove API_TOKEN' }).click();
  await section.getByText('No secrets').waitFor();
  expect((await vaultApi()).secrets).toEqual([]);
  // Only the three saves (the refused one included) carried the value.
  expect(sentBodies.filter((body) => body.includes(VALUE))).toHaveLength(3);
});
