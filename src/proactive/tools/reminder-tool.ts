import { z } from 'zod';
import { type Tool, ToolError } from '../../agent/tool.js';
import { TOOL_AREAS } from '../../agent/tool-catalog.js';
import { toolSchema } from '../../agent/tool-schema.js';
import type { ReminderService } from '../../services/reminder-service.js';

const parameters = z
  .object({
    action: z.enum(['add', 'list', 'cancel']),
    text: z.string().optional().describe('add: what to remind of (notify) or what to do (agent)'),
    when: z
      .string()
      .optional()
      .describe('add: "in 20m", "tomorrow at 9", ISO time, "every weekday at 7:30", or a cron expression'),
    mode: z
      .enum(['notify', 'agent'])
      .optional()
      .describe('notify: deliver the text (default); agent: run it as a task'),
    deliver_to: z.array(z.string()).optional().describe('add: targets like telegram:123; default: this chat'),
    id: z.number().int().min(1).optional().describe('cancel: the reminder id'),
  })
  .strict();

function shorten(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

export interface ReminderToolDeps {
  /** The owner's reminders (times parsed in the owner's zone at the service's clock). */
  reminders: ReminderService;
  /** Tells the scheduler a reminder changed (it ticks now rather than within 30 s). */
  wake?: () => void;
}

/**
 * `reminder`: the owner's reminders (add, list, cancel). A reminder the model adds is delivered to the chat
 * it was asked in unless targets are given; `agent` mode runs the text as a task when due. Adding stores
 * text a later run will act on, so after untrusted content it asks (see `assess`).
 */
export function createReminderTool(deps: ReminderToolDeps): Tool {
  return {
    name: 'reminder',
    description:
      'Set, list or cancel reminders: one-off ("in 20m", "tomorrow at 9") or recurring ("every weekday at 7:30"); notify delivers the text, agent runs it as a task when due.',
    parameters: toolSchema(parameters),
    risk: 'moderate',
    area: TOOL_AREAS.scheduling,
    // Adding plants text a later run acts on; cancelling removes what the owner relies on (see ToolAssessment).
    assess: (raw) => {
      if (raw['action'] === 'add' && typeof raw['text'] === 'string')
        return { persists: `a reminder ("${shorten(raw['text'])}")` };
      if (raw['action'] !== 'cancel' || typeof raw['id'] !== 'number') return {};
      const reminder = deps.reminders.get(raw['id']);
      return { removes: `reminder #${raw['id']}${reminder ? ` ("${shorten(reminder.text)}")` : ''}` };
    },
    async execute(raw, ctx) {
      const args = parameters.parse(raw);
      switch (args.action) {
        case 'add': {
          if (!args.text || !args.when) throw new ToolError('reminder add needs "text" and "when".');
          // The natural-language parser (chrono) loads with the first reminder, not at start-up.
          const added = await deps.reminders.add(
            {
              text: args.text,
              when: args.when,
              ...(args.mode ? { mode: args.mode } : {}),
              ...(args.deliver_to ? { deliverTo: args.deliver_to } : {}),
              sessionId: ctx.sessionId,
            },
            [`${ctx.channel}:${ctx.chatId}`],
          );
          if (!added.ok) throw new ToolError(added.error);
          deps.wake?.();
          return {
            content: `Reminder #${added.reminder.id} set: ${added.description}.`,
            details: added.reminder,
          };
        }
        case 'list': {
          const list = deps.reminders.list('active');
          return {
            content: list.length
              ? list.map((await import('../reminder-line.js')).reminderLine).join('\n')
              : 'No active reminders.',
            details: list,
          };
        }
        case 'cancel': {
          if (args.id === undefined) throw new ToolError('reminder cancel needs "id" (see reminder list).');
          if (!deps.reminders.cancel(args.id).ok)
            throw new ToolError(`There is no active reminder #${args.id}; list reminders to see the ids.`);
          deps.wake?.();
          return { content: `Cancelled reminder #${args.id}.` };
        }
      }
    },
  };
}
