import type { Command } from 'commander';
import { EXIT } from '../report-failure.js';

interface AddOptions {
  at?: string;
  in?: string;
  every?: string;
  mode?: string;
  to?: string[];
  json?: boolean;
}

const out = (text: string) => process.stdout.write(`${text}\n`);
const fail = (text: string, code: number) => {
  process.stderr.write(`wren: ${text}\n`);
  process.exitCode = code;
};

/** Tells a running gateway of this home to tick now, so a change applies at once (else within 30 s). */
async function nudgeScheduler(home: string): Promise<void> {
  const { findGateway, callGateway } = await import('../gateway-client.js');
  const found = await findGateway(home);
  if (found.state === 'running') await callGateway(found.link, 'POST', '/api/tick', {}, 2000).catch(() => {});
}

/**
 * `wren reminder add "text" (--at ISO | --in 20m | --every SPEC) [--mode notify|agent] [--to TARGET…]`,
 * `wren reminder list [--all] [--json]`, `wren reminder cancel ID`. They write the home's database directly,
 * so they work whether or not `wren start` runs (a running scheduler is nudged to see the change at once).
 * Exit codes: 0 ok, 1 not found, 2 bad input.
 */
export function registerReminderCommands(program: Command, home: () => string): void {
  const group = program.command('reminder').alias('reminders').description('reminders: add, list, cancel');
  group
    .command('add <text>')
    .description(
      'add a reminder: --in 20m, --at "tomorrow 9:00" or an ISO time, or --every "weekday 7:30" / a cron',
    )
    .option('--at <when>', 'when: an ISO time or words ("tomorrow at 9", "friday 17:00")')
    .option('--in <duration>', 'after a while: 20m, 2h, 1h30m, 3d')
    .option('--every <spec>', 'recurring: "day at 8", "weekday 7:30", "monday 9:00", or a cron expression')
    .option('--mode <mode>', 'notify (deliver the text, default) or agent (run it as a task)', 'notify')
    .option(
      '--to <target...>',
      'where to deliver: telegram:123, webhook:ntfy … (default: proactive.deliver_to, else the terminal)',
    )
    .option('--json', 'print the reminder as JSON')
    .action(async (text: string, options: AddOptions) => {
      const given = [options.at, options.in, options.every].filter((value) => value !== undefined);
      if (given.length !== 1) return fail('say when with exactly one of --at, --in or --every', EXIT.usage);
      if (options.mode !== 'notify' && options.mode !== 'agent')
        return fail('--mode is notify or agent', EXIT.usage);
      const when =
        options.in !== undefined
          ? `in ${options.in}`
          : options.every !== undefined
            ? `every ${options.every.replace(/^every\s+/i, '')}`
            : options.at!;
      const { withServices } = await import('../with-services.js');
      const added = await withServices(home(), ({ reminders }, { config }) =>
        reminders.add(
          {
            text,
            when,
            mode: options.mode as 'notify' | 'agent',
            ...(options.to ? { deliverTo: options.to } : {}),
          },
          config.proactive.deliverTo.length ? config.proactive.deliverTo : ['cli:terminal'],
        ),
      );
      if (!added.ok) return fail(added.error, EXIT.usage);
      await nudgeScheduler(home());
      if (options.json) out(JSON.stringify(added.reminder, null, 2));
      else out(`Reminder #${added.reminder.id}: ${added.description}.`);
    });
  group
    .command('list', { isDefault: true })
    .description('active reminders by next time (--all: every reminder, newest first)')
    .option('--all', 'also done and cancelled ones')
    .option('--json', 'print JSON')
    .action(async (options: { all?: boolean; json?: boolean }) => {
      const { withServices } = await import('../with-services.js');
      const { reminderLine } = await import('../../proactive/reminder-line.js');
      const list = await withServices(home(), (services) =>
        services.reminders.list(options.all ? 'all' : 'active'),
      );
      if (options.json) out(JSON.stringify(list, null, 2));
      else out(list.length ? list.map(reminderLine).join('\n') : 'No active reminders.');
    });
  group
    .command('cancel <id>')
    .description('cancel a reminder')
    .action(async (id: string) => {
      if (!/^\d+$/.test(id))
        return fail(`"${id}" is not a reminder id (a number; see wren reminder list)`, EXIT.usage);
      const { withServices } = await import('../with-services.js');
      const cancelled = await withServices(home(), (services) => services.reminders.cancel(Number(id)));
      if (!cancelled.ok) return fail(`no active reminder #${id}`, EXIT.failed);
      await nudgeScheduler(home());
      out(`Cancelled reminder #${id}.`);
    });
}
