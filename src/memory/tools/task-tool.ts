import { z } from 'zod';
import { type Tool, ToolError } from '../../agent/tool.js';
import { TOOL_AREAS } from '../../agent/tool-catalog.js';
import { toolSchema } from '../../agent/tool-schema.js';
import type { ServiceFailure, Task, TaskResult, TaskService } from '../../services/task-service.js';

const priority = z.enum(['low', 'normal', 'high']);

const parameters = z
  .object({
    action: z.enum(['create', 'list', 'update', 'complete', 'delete']),
    id: z.number().int().min(1).optional().describe('update/complete/delete: the task id'),
    title: z.string().optional().describe('create (required) / update'),
    notes: z.string().optional(),
    due: z
      .string()
      .optional()
      .describe('YYYY-MM-DD or YYYY-MM-DD HH:MM in the owner\'s time zone; "" clears it (update)'),
    priority: priority.optional(),
    status: z.enum(['open', 'done', 'all']).optional().describe('list: which tasks (default open)'),
  })
  .strict();

/** One task as a line: `#id [priority] title (due …) — notes`. */
export function taskLine(task: Task): string {
  const flags = [
    task.status === 'done' ? 'done' : undefined,
    task.priority !== 'normal' ? task.priority : undefined,
  ].filter(Boolean);
  return `#${task.id}${flags.length ? ` [${flags.join(', ')}]` : ''} ${task.title}${task.due ? ` (due ${task.due})` : ''}${task.notes ? ` — ${task.notes}` : ''}`;
}

/** The task of a service answer, or the tool error the model can act on. */
function taskOf(result: TaskResult, id?: number): Task {
  if (result.ok) return result.task;
  throw refusal(result, id);
}

function refusal(failure: ServiceFailure, id?: number): ToolError {
  return new ToolError(
    failure.code === 'not_found' ? `There is no task #${id}; list tasks to see the ids.` : failure.error,
  );
}

/** `task`: the owner's to-dos (create, list, update, complete, delete). Moderate risk; lists are private. */
export function createTaskTool(deps: { tasks: TaskService }): Tool {
  return {
    name: 'task',
    description:
      "Manage the owner's to-do list: create, list, update, complete or delete tasks with optional due date and priority.",
    parameters: toolSchema(parameters),
    risk: 'moderate',
    area: TOOL_AREAS.notes,
    // Open tasks are part of every system prompt: what a tainted turn writes there asks first.
    assess: (raw) => {
      if (raw['action'] !== 'create' && raw['action'] !== 'update') return {};
      const text = [raw['title'], raw['notes']].filter((part) => typeof part === 'string').join(' — ');
      return text ? { persists: `a task ("${text.length > 80 ? `${text.slice(0, 77)}…` : text}")` } : {};
    },
    async execute(raw) {
      const args = parameters.parse(raw);
      const { tasks } = deps;
      const needId = () => {
        if (args.id === undefined) throw new ToolError(`task ${args.action} needs "id" (see task list).`);
        return args.id;
      };
      const fields = {
        ...(args.title !== undefined ? { title: args.title } : {}),
        ...(args.notes !== undefined ? { notes: args.notes } : {}),
        ...(args.due !== undefined ? { due: args.due } : {}),
        ...(args.priority ? { priority: args.priority } : {}),
      };
      switch (args.action) {
        case 'create': {
          if (!args.title?.trim()) throw new ToolError('task create needs "title".');
          const task = taskOf(tasks.create({ ...fields, title: args.title }));
          return { content: `Created ${taskLine(task)}`, details: task };
        }
        case 'list': {
          const list = tasks.list(args.status ?? 'open', 50);
          const label = args.status ?? 'open';
          return {
            content: list.length
              ? list.map(taskLine).join('\n')
              : `No ${label === 'all' ? '' : `${label} `}tasks.`,
            details: list,
            taint: 'private',
          };
        }
        case 'update': {
          const id = needId();
          const task = taskOf(tasks.update(id, fields), id);
          return { content: `Updated ${taskLine(task)}`, details: task };
        }
        case 'complete': {
          const id = needId();
          const task = taskOf(tasks.complete(id), id);
          return { content: `Completed ${taskLine(task)}`, details: task };
        }
        case 'delete': {
          const id = needId();
          const deleted = tasks.delete(id);
          if (!deleted.ok) throw refusal(deleted, id);
          return { content: `Deleted task #${id}.` };
        }
      }
    },
  };
}

/** Open tasks for the system prompt (at most `max`, soonest due first); '' when none or `max` is 0. */
export function openTasksSection(tasks: Pick<TaskService, 'list' | 'countOpen'>, max: number): string {
  if (max <= 0) return '';
  const open = tasks.list('open', max);
  if (open.length === 0) return '';
  const total = tasks.countOpen();
  const more = total > open.length ? `\n(${total - open.length} more: use the task tool to list them)` : '';
  return `<open-tasks>\n${open.map(taskLine).join('\n')}${more}\n</open-tasks>`;
}
