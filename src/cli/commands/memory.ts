import { join } from 'node:path';
import type { Command } from 'commander';
import type { WrenConfig } from '../../config/wren-config.js';
import type { OwnerServices } from '../../services/owner-services.js';
import { plural } from '../plural.js';
import { EXIT } from '../report-failure.js';
import { wholeNumber } from '../whole-number.js';

const out = (text: string) => process.stdout.write(`${text}\n`);
const json = (value: unknown) => out(JSON.stringify(value, null, 2));

function parseId(text: string): number | undefined {
  return /^\d+$/.test(text) && Number(text) > 0 ? Number(text) : undefined;
}

/** The id as a number, or undefined after saying why on stderr and setting the usage exit code. */
function requireId(text: string, kind: 'memo' | 'task'): number | undefined {
  const number = parseId(text);
  if (number === undefined) {
    process.stderr.write(`wren: "${text}" is not a ${kind} id (a positive number; see wren ${kind})\n`);
    process.exitCode = EXIT.usage;
  }
  return number;
}

async function withHome(
  home: string,
  run: (opened: {
    config: WrenConfig;
    services: OwnerServices;
    timezone: string;
  }) => Promise<number> | number,
) {
  const { withHome: withOpened } = await import('../../app/open-home.js');
  return withOpened(home, (opened) =>
    run({ config: opened.config, services: opened.services(), timezone: opened.config.agent.timezone }),
  );
}

/**
 * `wren memory search|show|undo-tidy`, `wren memo …`, `wren task …`. Exit codes: 0 ok, 1 not found (or an
 * undo refused), 2 bad input.
 */
export function registerMemoryCommands(program: Command, home: () => string): void {
  const memory = program
    .command('memory')
    .description('search and show what Wren remembers, undo a memory tidy');
  memory
    .command('search <query...>')
    .description(
      'search past conversations (all sessions) and HISTORY.md, best match first (also by meaning with an embedding model)',
    )
    .option('--since <date>', 'from this day on (YYYY-MM-DD)')
    .option('--until <date>', 'up to this day, inclusive (YYYY-MM-DD)')
    .option('--limit <n>', 'results per source (default 8)', (value) => wholeNumber(value, 1, 1000))
    .option('--json', 'print JSON')
    .action(
      async (
        words: string[],
        options: { since?: string; until?: string; limit?: number; json?: boolean },
      ) => {
        const { formatSearchResult } = await import('../../memory/memory-search.js');
        const bad = [options.since, options.until].find((date) => date && !/^\d{4}-\d{2}-\d{2}$/.test(date));
        if (bad || (options.limit !== undefined && !(options.limit > 0))) {
          process.stderr.write(
            `wren: ${bad ? `invalid date "${bad}": use YYYY-MM-DD` : '--limit must be a positive number'}\n`,
          );
          process.exitCode = EXIT.usage;
          return;
        }
        process.exitCode = await withHome(home(), async ({ services, config }) => {
          const query = words.join(' ');
          const search = await services.memorySearch.searcher(config);
          const result = await search({
            text: query,
            ...(options.since ? { since: options.since } : {}),
            ...(options.until ? { until: options.until } : {}),
            ...(options.limit ? { limit: options.limit } : {}),
          });
          if (options.json) json({ query, ...result });
          else out(formatSearchResult(query, result));
          return result.history.length + result.messages.length > 0 ? EXIT.ok : EXIT.failed;
        });
      },
    );
  memory
    .command('show')
    .description('print MEMORY.md and the consolidation status')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { readSnapshot } = await import('../../memory/markdown-file.js');
      const { parseHistoryEntries } = await import('../../memory/history-file.js');
      process.exitCode = await withHome(home(), ({ services, config }) => {
        const file = join(config.workspace, 'MEMORY.md');
        const text = readSnapshot(file).text;
        const entries = parseHistoryEntries(readSnapshot(join(config.workspace, 'HISTORY.md')).text).length;
        const status = services.status.consolidation();
        if (options.json) {
          json({ file, memory: text, historyEntries: entries, consolidation: status });
          return EXIT.ok;
        }
        out(text.trim() || `(${file} is empty)`);
        out('');
        out(
          `HISTORY.md: ${plural(entries, 'entry')} · consolidated messages: ${status.consolidatedMessages}`,
        );
        for (const failing of status.failing) {
          out(
            `consolidation failing for session ${failing.sessionId} (${failing.failures}×): ${failing.lastError ?? ''}`,
          );
        }
        return EXIT.ok;
      });
    });
  memory
    .command('undo-tidy')
    .description('put MEMORY.md back as it was before the last memory tidy (recorded in HISTORY.md)')
    .option('--force', 'restore it even though MEMORY.md changed since the tidy (that change is lost)')
    .option('--json', 'print JSON')
    .action(async (options: { force?: boolean; json?: boolean }) => {
      const { UndoTidyError } = await import('../../memory/tidy/undo-tidy.js');
      process.exitCode = await withHome(home(), async ({ services, config }) => {
        try {
          const undone = await services.memoryFiles.undoTidy({
            workspace: config.workspace,
            force: options.force === true,
          });
          if (options.json) json(undone);
          else
            out(
              `Restored MEMORY.md as it was before the memory tidy of ${undone.tidiedAt}${undone.forced ? ' (your later changes to it are replaced)' : ''}; the undo is recorded in HISTORY.md.`,
            );
          return EXIT.ok;
        } catch (error) {
          if (!(error instanceof UndoTidyError)) throw error;
          process.stderr.write(`wren: ${error.message}\n`);
          return EXIT.failed;
        }
      });
    });
  registerMemoCommands(program, home);
  registerTaskCommands(program, home);
}

function registerMemoCommands(program: Command, home: () => string): void {
  const memo = program.command('memo').description('notes kept by Wren (list, add, search, delete)');
  const list = async (options: { json?: boolean; limit?: number }) => {
    const { memoLine } = await import('../../memory/tools/memo-tool.js');
    process.exitCode = await withHome(home(), ({ services, timezone }) => {
      const memos = services.memos.list(options.limit ?? 50);
      if (options.json) json(memos);
      else out(memos.length ? memos.map((item) => memoLine(item, timezone)).join('\n') : 'No memos yet.');
      return EXIT.ok;
    });
  };
  memo
    .command('list', { isDefault: true })
    .description('newest memos first')
    .option('--limit <n>', 'how many (default 50)', (value) => wholeNumber(value, 1, 1000))
    .option('--json', 'print JSON')
    .action(list);
  memo
    .command('add <text...>')
    .description('save a memo')
    .option('--json', 'print JSON')
    .action(async (words: string[], options: { json?: boolean }) => {
      process.exitCode = await withHome(home(), ({ services }) => {
        const text = words.join(' ').trim();
        if (!text) {
          process.stderr.write('wren: a memo needs some text\n');
          return EXIT.usage;
        }
        const saved = services.memos.add(text);
        if (options.json) json(saved);
        else out(`Saved memo #${saved.id}.`);
        return EXIT.ok;
      });
    });
  memo
    .command('search <query...>')
    .description('memos matching the words, best first')
    .option('--json', 'print JSON')
    .action(async (words: string[], options: { json?: boolean }) => {
      const { memoLine } = await import('../../memory/tools/memo-tool.js');
      process.exitCode = await withHome(home(), ({ services, timezone }) => {
        const found = services.memos.search(words.join(' '), 50);
        if (options.json) json(found);
        else
          out(found.length ? found.map((item) => memoLine(item, timezone)).join('\n') : 'No memo matches.');
        return found.length ? EXIT.ok : EXIT.failed;
      });
    });
  memo
    .command('delete <id>')
    .description('delete a memo by id')
    .action(async (id: string) => {
      const number = requireId(id, 'memo');
      if (number === undefined) return;
      process.exitCode = await withHome(home(), ({ services }) => {
        if (services.memos.delete(number)) {
          out(`Deleted memo #${number}.`);
          return EXIT.ok;
        }
        process.stderr.write(`wren: there is no memo #${number}\n`);
        return EXIT.failed;
      });
    });
}

function registerTaskCommands(program: Command, home: () => string): void {
  const task = program.command('task').description('to-dos kept by Wren (list, add, done, delete)');
  task
    .command('list', { isDefault: true })
    .description('open tasks, soonest due first')
    .option('--all', 'include done tasks')
    .option('--done', 'only done tasks')
    .option('--json', 'print JSON')
    .action(async (options: { all?: boolean; done?: boolean; json?: boolean }) => {
      const { taskLine } = await import('../../memory/tools/task-tool.js');
      process.exitCode = await withHome(home(), ({ services }) => {
        const tasks = services.tasks.list(options.all ? 'all' : options.done ? 'done' : 'open', 200);
        if (options.json) json(tasks);
        else out(tasks.length ? tasks.map(taskLine).join('\n') : 'No tasks.');
        return EXIT.ok;
      });
    });
  task
    .command('add <title...>')
    .description('add a task')
    .option('--due <date>', 'YYYY-MM-DD or "YYYY-MM-DD HH:MM"')
    .option('--priority <level>', 'low, normal or high')
    .option('--notes <text>', 'details')
    .option('--json', 'print JSON')
    .action(
      async (
        words: string[],
        options: { due?: string; priority?: string; notes?: string; json?: boolean },
      ) => {
        const { normalizeDue } = await import('../../store/task-repository.js');
        const { taskLine } = await import('../../memory/tools/task-tool.js');
        let due: string | undefined;
        try {
          due = options.due ? normalizeDue(options.due) : undefined;
        } catch (error) {
          process.stderr.write(`wren: ${(error as Error).message}\n`);
          process.exitCode = EXIT.usage;
          return;
        }
        const priority = options.priority?.toLowerCase();
        if (priority !== undefined && priority !== 'low' && priority !== 'normal' && priority !== 'high') {
          process.stderr.write(`wren: --priority must be low, normal or high (got "${options.priority}")\n`);
          process.exitCode = EXIT.usage;
          return;
        }
        process.exitCode = await withHome(home(), ({ services }) => {
          const created = services.tasks.create({
            title: words.join(' '),
            ...(due ? { due } : {}),
            ...(priority ? { priority } : {}),
            ...(options.notes ? { notes: options.notes } : {}),
          });
          if (options.json) json(created);
          else out(`Added ${taskLine(created)}`);
          return EXIT.ok;
        });
      },
    );
  for (const [name, description] of [
    ['done', 'mark a task done'],
    ['delete', 'delete a task'],
  ] as const) {
    task
      .command(`${name} <id>`)
      .description(description)
      .action(async (id: string) => {
        const number = requireId(id, 'task');
        if (number === undefined) return;
        process.exitCode = await withHome(home(), ({ services }) => {
          const tasks = services.tasks;
          const ok = name === 'done' ? tasks.complete(number) !== undefined : tasks.delete(number);
          if (!ok) {
            process.stderr.write(`wren: there is no task #${number}\n`);
            return EXIT.failed;
          }
          out(name === 'done' ? `Done: task #${number}.` : `Deleted task #${number}.`);
          return EXIT.ok;
        });
      });
  }
}
