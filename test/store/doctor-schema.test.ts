import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openHome } from '../../src/app/open-home.js';
import { collectChecks } from '../../src/cli/commands/doctor.js';
import { SCHEMA_VERSION } from '../../src/store/migrations.js';
import { buildFixture } from '../support/schema-fixtures.js';
import { makeHome } from '../support/wren-home.js';

it('wren doctor shows an old schema without upgrading it; the first open upgrades it after a private copy', async () => {
  const home = makeHome('');
  buildFixture(join(home, 'wren.db'), 7);
  const before = (await collectChecks(home)).find((check) => check.id === 'database.schema');
  expect(before).toMatchObject({ status: 'warn', message: expect.stringContaining('7') });
  // Doctor looked only: a second look still finds the old version, and no copy was made.
  expect((await collectChecks(home)).find((check) => check.id === 'database.schema')?.status).toBe('warn');
  expect(() => readdirSync(join(home, 'backups'))).toThrow();

  const opened = openHome(home);
  opened.stores().memos.count();
  opened.close();
  expect(readdirSync(join(home, 'backups'))).toEqual([expect.stringMatching(/^wren-v7-.+\.db$/)]);
  const after = (await collectChecks(home)).find((check) => check.id === 'database.schema');
  expect(after).toMatchObject({ status: 'ok', message: `schema version ${SCHEMA_VERSION} (current)` });
});
