import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { routeHarness } from '../../test/support/route-harness.js';
import { fileRoutes } from './file-routes.js';
import { MAX_UPLOAD_BYTES, uploadRoutes } from './upload-routes.js';

const harness = routeHarness();

type Body = Record<string, unknown> & { error?: { code: string; message: string } };

const DAY = new Date('2026-12-01T10:00:00Z');

function setup(maxBytes?: number) {
  const dir = harness.folder('wren-upload-');
  const workspace = join(dir, 'workspace');
  const outside = join(dir, 'outside');
  mkdirSync(workspace);
  mkdirSync(outside);
  const saved: unknown[] = [];
  const app = new Hono();
  app.route(
    '/',
    uploadRoutes({
      workspace: () => workspace,
      clock: () => DAY,
      onSaved: (file) => saved.push(file),
      ...(maxBytes ? { maxBytes } : {}),
    }),
  );
  app.route(
    '/',
    fileRoutes(() => [workspace]),
  );
  const upload = async (form: FormData | string, headers: Record<string, string> = {}) => {
    const response = await app.request('/api/files', { method: 'POST', body: form, headers });
    return { status: response.status, body: (await response.json()) as Body };
  };
  const formWith = (name: string, content: string | Uint8Array, extra: Record<string, string> = {}) => {
    const form = new FormData();
    form.append('file', new File([content], name));
    for (const [key, value] of Object.entries(extra)) form.append(key, value);
    return form;
  };
  return { app, workspace, outside, upload, formWith, saved };
}

describe('POST /api/files', () => {
  it('saves into the workspace inbox as channels do, and the url downloads it again', async () => {
    const { app, workspace, upload, formWith, saved } = setup();
    const answer = await upload(formWith('Quarterly report.pdf', 'PDF bytes', { session: 'abc-1' }));
    expect(answer).toEqual({
      status: 201,
      body: {
        name: '2026-12-01-Quarterly_report.pdf',
        path: 'inbox/2026-12-01-Quarterly_report.pdf',
        size: 9,
        url: '/api/files/inbox/2026-12-01-Quarterly_report.pdf',
      },
    });
    expect(readFileSync(join(workspace, 'inbox/2026-12-01-Quarterly_report.pdf'), 'utf8')).toBe('PDF bytes');
    expect(statSync(join(workspace, 'inbox/2026-12-01-Quarterly_report.pdf')).mode & 0o777).toBe(0o600);
    expect(saved).toEqual([{ path: 'inbox/2026-12-01-Quarterly_report.pdf', size: 9, session: 'abc-1' }]);
    const download = await app.request(answer.body['url'] as string);
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('PDF bytes');
  });

  it('never overwrites, and makes hostile names harmless (the url stays downloadable)', async () => {
    const { app, workspace, upload, formWith } = setup();
    const first = await upload(formWith('notes.txt', 'one'));
    const second = await upload(formWith('notes.txt', 'two'));
    expect([first.body['path'], second.body['path']]).toEqual([
      'inbox/2026-12-01-notes.txt',
      'inbox/2026-12-01-notes-1.txt',
    ]);
    expect(readFileSync(join(workspace, 'inbox/2026-12-01-notes.txt'), 'utf8')).toBe('one');
    const climbed = await upload(formWith('../../../etc/passwd', 'x'));
    expect(climbed.body['path']).toBe('inbox/2026-12-01-passwd');
    const hidden = await upload(formWith('.bashrc', 'x'));
    expect(hidden.body['path']).toBe('inbox/2026-12-01-bashrc');
    const spaced = await upload(formWith('Ünïcødé 100%.txt', 'u'));
    expect(spaced.body['name']).toBe('2026-12-01-Ünïcødé_100.txt');
    const download = await app.request(spaced.body['url'] as string);
    expect(await download.text()).toBe('u');
    expect(readdirSync(join(workspace, 'inbox'))).toHaveLength(5);
  });

  it('never writes through a symlinked inbox or a symlink planted at the name', async () => {
    const { workspace, outside, upload, formWith } = setup();
    symlinkSync(outside, join(workspace, 'inbox'));
    const refused = await upload(formWith('a.txt', 'evil'));
    expect(refused.status).toBe(403);
    expect(refused.body.error?.message).toMatch(/symbolic link/);
    expect(readdirSync(outside)).toEqual([]);

    const other = setup();
    const victim = join(other.outside, 'victim.txt');
    writeFileSync(victim, 'safe');
    mkdirSync(join(other.workspace, 'inbox'));
    symlinkSync(victim, join(other.workspace, 'inbox', '2026-12-01-a.txt'));
    const saved = await other.upload(other.formWith('a.txt', 'evil'));
    expect(saved.body['path']).toBe('inbox/2026-12-01-a-1.txt');
    expect(readFileSync(victim, 'utf8')).toBe('safe');
  });

  it('refuses a file over the limit with 413 and stores nothing', async () => {
    const { workspace, upload, formWith } = setup(1000);
    const answer = await upload(formWith('big.bin', new Uint8Array(1001)));
    expect(answer.status).toBe(413);
    expect(answer.body.error).toMatchObject({
      code: 'too_large',
      message: expect.stringMatching(/1000 bytes/),
    });
    const fits = await upload(formWith('ok.bin', new Uint8Array(1000)));
    expect(fits.status).toBe(201);
    // A body far over the limit is cut off while it streams in.
    const huge = await upload(formWith('huge.bin', new Uint8Array(200_000)));
    expect(huge.status).toBe(413);
    expect(readdirSync(join(workspace, 'inbox'))).toEqual(['2026-12-01-ok.bin']);
  });

  it('takes 25 MB and refuses one byte more', async () => {
    const { upload, formWith } = setup();
    expect(MAX_UPLOAD_BYTES).toBe(25 * 1024 * 1024);
    expect((await upload(formWith('max.bin', new Uint8Array(MAX_UPLOAD_BYTES)))).status).toBe(201);
    expect((await upload(formWith('over.bin', new Uint8Array(MAX_UPLOAD_BYTES + 1)))).status).toBe(413);
  });

  it('refuses what is not one file part with 400', async () => {
    const { workspace, upload, formWith } = setup();
    const cases: Array<[string, FormData | string, Record<string, string>?]> = [];
    cases.push(['JSON', '{"file": "x"}', { 'content-type': 'application/json' }]);
    cases.push(['no content type', 'x']);
    cases.push([
      'a broken multipart body',
      '--b\r\nnonsense',
      { 'content-type': 'multipart/form-data; boundary=b' },
    ]);
    const text = new FormData();
    text.append('file', 'just text');
    cases.push(['a text part', text]);
    const two = formWith('a.txt', 'a');
    two.append('file', new File(['b'], 'b.txt'));
    cases.push(['two files', two]);
    const none = new FormData();
    none.append('session', 'abc');
    cases.push(['no file', none]);
    cases.push(['an unknown field', formWith('a.txt', 'a', { path: '../../x' })]);
    cases.push(['a bad session', formWith('a.txt', 'a', { session: 'a b' })]);
    for (const [name, body, headers] of cases) {
      const answer = await upload(body, headers);
      expect(answer.status, name).toBe(400);
      expect(answer.body.error?.code, name).toBe('bad_request');
    }
    expect(() => readdirSync(join(workspace, 'inbox'))).toThrow();
  });
});
