import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { toolContext } from '../../test/support/tool-context.js';
import { ToolError } from '../agent/tool.js';
import { loadConfig } from '../config/load-config.js';
import { createBriefingTool } from './briefing-tool.js';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function setup(config = '# my settings\nagent:\n  timezone: Europe/Berlin\n') {
  const home = mkdtempSync(join(tmpdir(), 'wren-briefing-tool-'));
  homes.push(home);
  writeFileSync(join(home, 'config.yaml'), config, { mode: 0o600 });
  let wakes = 0;
  const tool = createBriefingTool({
    home,
    config: () => loadConfig(home, {}).briefing,
    timezone: () => 'Europe/Berlin',
    wake: () => wakes++,
  });
  const call = (args: Record<string, unknown>) =>
    tool.execute(args, toolContext(), new AbortController().signal);
  return { home, tool, call, wakes: () => wakes };
}

describe('the briefing tool', () => {
  it('"brief me every weekday at 7:30": writes briefing: into config.yaml, comments kept, and says so', async () => {
    const { home, call, wakes } = setup();
    expect((await call({ action: 'show' })).content).toBe('The morning briefing is off.');
    const set = await call({ action: 'set', at: '7:30', days: 'weekdays', weather: 'Berlin' });
    expect(set.content).toBe(
      'The morning briefing runs on weekdays at 07:30 (Europe/Berlin), with the weather for Berlin.',
    );
    const text = readFileSync(join(home, 'config.yaml'), 'utf8');
    expect(text).toContain('# my settings');
    expect(loadConfig(home, {}).briefing).toEqual({ at: '07:30', days: [1, 2, 3, 4, 5], weather: 'Berlin' });
    expect(wakes()).toBe(1);
    // A new time keeps the days already set.
    expect((await call({ action: 'set', at: '08:00' })).content).toMatch(
      /^The morning briefing runs on weekdays at 08:00/,
    );
    expect((await call({ action: 'off' })).content).toBe('The morning briefing is off.');
    expect(loadConfig(home, {}).briefing.at).toBeUndefined();
  });

  it('refuses a set without a time and bad arguments, writing nothing', async () => {
    const { home, call } = setup();
    const before = readFileSync(join(home, 'config.yaml'), 'utf8');
    await expect(call({ action: 'set' })).rejects.toThrow(
      new ToolError('briefing set needs "at", a local time like "07:30".'),
    );
    await expect(call({ action: 'set', at: '25:99' })).rejects.toThrow(/Invalid string/);
    await expect(call({ action: 'set', at: '07:00', days: [] })).rejects.toThrow(/too_small|at least/i);
    await expect(call({ action: 'set', at: '07:00', extra: 'x' })).rejects.toThrow(/Unrecognized key/);
    expect(readFileSync(join(home, 'config.yaml'), 'utf8')).toBe(before);
  });

  it('asks after untrusted content: setting stores a schedule, turning off removes one', () => {
    const { tool } = setup();
    expect(tool.assess?.({ action: 'set', at: '07:30' }, toolContext())).toEqual({
      persists: 'a morning briefing at 07:30',
    });
    expect(tool.assess?.({ action: 'off' }, toolContext())).toEqual({
      removes: 'the morning briefing (turned off)',
    });
    expect(tool.assess?.({ action: 'show' }, toolContext())).toEqual({});
    expect(tool.risk).toBe('moderate');
  });
});
