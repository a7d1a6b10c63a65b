import { isMap } from 'yaml';
import { z } from 'zod';
import { type Tool, ToolError } from '../agent/tool.js';
import { TOOL_AREAS } from '../agent/tool-catalog.js';
import { toolSchema } from '../agent/tool-schema.js';
import type { BriefingConfig } from '../config/briefing-config.js';
import { editConfig } from '../config/config-writer.js';
import { loadConfig } from '../config/load-config.js';
import { ConfigError } from '../util/config-error.js';

const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;

const parameters = z
  .object({
    action: z
      .enum(['show', 'set', 'off'])
      .describe('show the schedule, set it (turns it on), or turn it off'),
    at: z
      .string()
      .regex(/^([01]?\d|2[0-3]):[0-5]\d$/)
      .optional()
      .describe('set: local time, "07:30"'),
    days: z
      .union([z.enum(['daily', 'weekdays', 'weekends']), z.array(z.enum(DAY_NAMES)).min(1)])
      .optional()
      .describe('set: daily (default), weekdays, weekends, or days like ["mon","thu"]'),
    weather: z.string().trim().min(1).max(200).optional().describe('set: a place for the forecast'),
  })
  .strict();

export interface BriefingToolDeps {
  home: string;
  config: () => BriefingConfig;
  /** The owner's zone, shown with the time. */
  timezone: () => string;
  /** Tells the scheduler its next wake-up may have moved. */
  wake?: () => void;
}

function describe(config: BriefingConfig, timezone: string): string {
  if (!config.at) return 'The morning briefing is off.';
  const days =
    config.days.length === 7
      ? 'every day'
      : config.days.join() === '1,2,3,4,5'
        ? 'on weekdays'
        : `on ${config.days.map((day) => DAY_NAMES[day]).join(', ')}`;
  return `The morning briefing runs ${days} at ${config.at} (${timezone})${config.weather ? `, with the weather for ${config.weather}` : ''}.`;
}

/**
 * `briefing`: shows, sets or turns off the morning briefing ("brief me every weekday at 7:30") by editing
 * `briefing:` in config.yaml (comments and placeholders kept; the edit is validated before it is written),
 * which the running gateway reloads. Setting it stores a schedule that speaks later, so after untrusted
 * content the gate asks first; turning it off is told to the owner.
 */
export function createBriefingTool(deps: BriefingToolDeps): Tool {
  return {
    name: 'briefing',
    description:
      'The morning briefing (agenda, tasks, reminders, mail, weather, goals): show, set its time and days, or turn it off.',
    parameters: toolSchema(parameters),
    risk: 'moderate',
    area: TOOL_AREAS.scheduling,
    assess: (raw) => {
      if (raw['action'] === 'off') return { removes: 'the morning briefing (turned off)' };
      if (raw['action'] !== 'set') return {};
      return { persists: `a morning briefing at ${String(raw['at'] ?? '?')}` };
    },
    async execute(raw) {
      const args = parameters.parse(raw);
      if (args.action === 'show') return { content: describe(deps.config(), deps.timezone()) };
      if (args.action === 'set' && !args.at)
        throw new ToolError('briefing set needs "at", a local time like "07:30".');
      try {
        editConfig(deps.home, (doc) => {
          if (args.action === 'off') {
            if (isMap(doc.get('briefing'))) doc.deleteIn(['briefing', 'at']);
            return;
          }
          doc.setIn(['briefing', 'at'], args.at!.padStart(5, '0'));
          if (args.days) doc.setIn(['briefing', 'days'], args.days);
          if (args.weather) doc.setIn(['briefing', 'weather'], args.weather);
        });
      } catch (error) {
        if (error instanceof ConfigError) throw new ToolError(error.message);
        throw error;
      }
      deps.wake?.();
      // What is now in force, read back from the file just written (the gateway reloads it on its own).
      return { content: describe(loadConfig(deps.home).briefing, deps.timezone()) };
    },
  };
}
