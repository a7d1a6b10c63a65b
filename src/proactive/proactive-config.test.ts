import { describe, expect, it } from 'vitest';
import {
  defaultProactiveConfig,
  proactiveSectionSchema,
  quietUntil,
  toProactiveConfig,
} from './proactive-config.js';

const config = (section: Record<string, unknown>) => toProactiveConfig(proactiveSectionSchema.parse(section));

describe('proactive config', () => {
  it('has safe defaults and scales the goal pass by proactivity (clamped to 5 min – 24 h)', () => {
    expect(defaultProactiveConfig()).toMatchObject({
      enabled: true,
      proactivity: 'default',
      heartbeatMs: 1_800_000,
      goalPassMs: 3_600_000,
      push: false,
    });
    expect(config({ proactivity: 'high' }).goalPassMs).toBe(1_800_000);
    expect(config({ proactivity: 'low' }).goalPassMs).toBe(7_200_000);
    expect(config({ proactivity: 'off' }).goalPassMs).toBeUndefined();
    expect(config({ proactivity: 'high', goal_pass_minutes: 5 }).goalPassMs).toBe(300_000);
    expect(config({ proactivity: 'low', goal_pass_minutes: 1440 }).goalPassMs).toBe(86_400_000);
  });

  it('refuses bad quiet hours, targets and webhook URLs with a message', () => {
    for (const section of [
      { quiet_hours: '25:00-07:00' },
      { quiet_hours: '22:30' },
      { deliver_to: ['telegram'] },
      { webhooks: { ntfy: { url: 'ftp://x' } } },
      { proactivity: 'sometimes' },
    ])
      expect(proactiveSectionSchema.safeParse(section).success, JSON.stringify(section)).toBe(false);
  });

  it('quiet hours wrap midnight, in the owner’s zone, and say when they end', () => {
    const quiet = config({ quiet_hours: '22:30-07:00' }).quietHours;
    const at = (iso: string) => Date.parse(iso);
    // Berlin is UTC+1 in January.
    expect(quietUntil(quiet, at('2026-01-10T22:00:00Z'), 'Europe/Berlin')).toBe(at('2026-01-11T06:00:00Z'));
    expect(quietUntil(quiet, at('2026-01-11T05:59:00Z'), 'Europe/Berlin')).toBe(at('2026-01-11T06:00:00Z'));
    expect(quietUntil(quiet, at('2026-01-11T06:00:00Z'), 'Europe/Berlin')).toBeUndefined();
    expect(quietUntil(quiet, at('2026-01-10T21:29:00Z'), 'Europe/Berlin')).toBeUndefined();
    const day = config({ quiet_hours: '12:00-13:00' }).quietHours;
    expect(quietUntil(day, at('2026-01-10T12:30:00Z'), 'UTC')).toBe(at('2026-01-10T13:00:00Z'));
    expect(quietUntil(undefined, at('2026-01-10T12:30:00Z'), 'UTC')).toBeUndefined();
  });
});
