import { join } from 'node:path';
import type { Command } from 'commander';
import type { WrenConfig } from '../../config/wren-config.js';
import type { OwnerServices } from '../../services/owner-services.js';
import type { ServiceFailure } from '../../services/service-failure.js';
import { plural } from '../plural.js';
import { EXIT } from '../report-failure.js';
import { wholeNumber } from '../whole-number.js';
import { registerMemoryHistory } from './memory-history.js';
import { registerMemoryProposals } from './memory-proposals.js';

const out = (text: string) => process.stdout.write(`${text}\n`);
const json = (value: unknown) => out(JSON.stringify(value, null, 2));

type Opened = { config: WrenConfig; services: OwnerServices; timezone: string };

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

/** Says why a service refused on stderr; the exit code: 1 for an unknown id, 2 for bad input. */
function refused(failure: ServiceFailure, id?: { kind: 'memo' | 'task'; number: number }): number {
  if (failure.code === 'not_found' && id) {
    process.stderr.write(`wren: there is no ${id.kind} #${id.number}\n`);
    return EXIT.failed;
  }
  process.stderr.write(`wren: ${failure.error}\n`);
  return failure.code === 'not_found' ? EXIT.failed : EXIT.usage;
}

async function withHome(home: string, run: (opened: Opened) => Promise<number> | number) {
  const { withHome: withOpened } = await import('../../app/open-home.js');
  return withOpened(home, (opened) =>
    run({ config: opened.config, services: opened.services(), timezone: opened.config.agent.timezone }),
  );
}

/**
 * `wren memory search|show|undo-tidy|log|diff|revert|proposals|accept|dismiss`, `wren memo …`, `wren task …`.
 * Exit codes: 0 ok, 1 not found (or an undo refused, a proposal decided already), 2 bad input.
 */
export function registerMemoryCommands(program: Command, home: () => string): void {
  const memory = program
    .command('memory')
    .description(
      'search and show what Wren remembers, the history of its instruction files, undo a memory tidy, decide Dream’s proposals',
    );
  registerMemorySearch(memory, home);
  registerMemoryShow(memory, home);
  registerUndoTidy(memory, home);
  registerMemoryHistory(memory, home, (path, run) =>
    withHome(path, (opened) => run({ ...opened, workspace: opened.config.workspace })),
  );
  registerMemoryProposals(memory, home);
  registerMemoCommands(program, home);
  registerTaskCommands(program, home);
}

type SearchOptions = { since?: string; until?: string; limit?: number; json?: boolean };

function registerMemorySearch(memory: Command, home: () => string): void {
  memory
    .command('search <query...>')
    .description(
      'search past conversations (all sessions) and HISTORY.md, best match first (also by meaning with an embedding model)',
    )
    .option('--since <date>', 'from this day on (YYYY-MM-DD)')
    .option('--until <date>', 'up to this day, inclusive (YYYY-MM-DD)')
    .option('--limit <n>', 'results per source (default 8)', (value) => wholeNumber(value, 1, 1000))
    .option('--json', 'print JSON')
    .action(async (words: string[], options: SearchOptions) => {
      const bad = [options.since, options.until].find((date) => date && !/^\d{4}-\d{2}-\d{2}$/.test(date));
      if (bad || (options.limit !== undefined && !(options.limit > 0))) {
        process.stderr.write(
          `wren: ${bad ? `invalid date "${bad}": use YYYY-MM-DD` : '--limit must be a positive number'}\n`,
        );
        process.exitCode = EXIT.usage;
        return;
      }
      process.exitCode = await withHome(home(), (opened) => searchMemory(opened, words.join(' '), options));
    });
}

async function searchMemory({ services, config }: Opened, query: string, options: SearchOptions) {
  const { formatSearchResult } = await import('../../memory/memory-search.js');
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
}

function registerMemoryShow(memory: Command, home: () => string): void {
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
}

function registerUndoTidy(memory: Command, home: () => string): void {
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
}

function registerMemoCommands(program: Command, home: () => string): void {
  const memo = program.command('memo').description('notes kept by Wren (list, add, search, delete)');
  registerMemoList(memo, home);
  registerMemoAdd(memo, home);
  registerMemoSearch(memo, home);
  registerMemoDelete(memo, home);
}

function registerMemoList(memo: Command, home: () => string): void {
  memo
    .command('list', { isDefault: true })
    .description('newest memos first')
    .option('--limit <n>', 'how many (default 50)', (value) => wholeNumber(value, 1, 1000))
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean; limit?: number }) => {
      const { memoLine } = await import('../../memory/tools/memo-tool.js');
      process.exitCode = await withHome(home(), ({ services, timezone }) => {
        const memos = services.memos.list(options.limit ?? 50);
        if (options.json) json(memos);
        else out(memos.length ? memos.map((item) => memoLine(item, timezone)).join('\n') : 'No memos yet.');
        return EXIT.ok;
      });
    });
}

function registerMemoAdd(memo: Command, home: () => string): void {
  memo
    .command('add <text...>')
    .description('save a memo')
    .option('--json', 'print JSON')
    .action(async (words: string[], options: { json?: boolean }) => {
      process.exitCode = await withHome(home(), ({ services }) => {
        const saved = services.memos.add({ text: words.join(' ') });
        if (!saved.ok) return refused(saved);
        if (options.json) json(saved.memo);
        else out(`Saved memo #${saved.memo.id}.`);
        return EXIT.ok;
      });
    });
}

function registerMemoSearch(memo: Command, home: () => string): void {
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
}

function registerMemoDelete(memo: Command, home: () => string): void {
  memo
    .command('delete <id>')
    .description('delete a memo by id')
    .action(async (id: string) => {
      const number = requireId(id, 'memo');
      if (number === undefined) return;
      process.exitCode = await withHome(home(), ({ services }) => {
        const deleted = services.memos.delete(number);
        if (!deleted.ok) return refused(deleted, { kind: 'memo', number });
        out(`Deleted memo #${number}.`);
        return EXIT.ok;
      });
    });
}

function registerTaskCommands(program: Command, home: () => string): void {
  const task = program.command('task').description('to-dos kept by Wren (list, add, done, delete)');
  registerTaskList(task, home);
  registerTaskAdd(task, home);
  registerTaskDone(task, home);
  registerTaskDelete(task, home);
}

function registerTaskList(task: Command, home: () => string): void {
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
}

type TaskAddOptions = { due?: string; priority?: string; notes?: string; json?: boolean };

function registerTaskAdd(task: Command, home: () => string): void {
  task
    .command('add <title...>')
    .description('add a task')
    .option('--due <date>', 'YYYY-MM-DD or "YYYY-MM-DD HH:MM"')
    .option('--priority <level>', 'low, normal or high')
    .option('--notes <text>', 'details')
    .option('--json', 'print JSON')
    .action(async (words: string[], options: TaskAddOptions) => {
      const { taskLine } = await import('../../memory/tools/task-tool.js');
      process.exitCode = await withHome(home(), ({ services }) => {
        const created = services.tasks.create({
          title: words.join(' '),
          ...(options.due ? { due: options.due } : {}),
          ...(options.priority !== undefined ? { priority: options.priority.toLowerCase() } : {}),
          ...(options.notes ? { notes: options.notes } : {}),
        });
        if (!created.ok) return refused(created);
        if (options.json) json(created.task);
        else out(`Added ${taskLine(created.task)}`);
        return EXIT.ok;
      });
    });
}

function registerTaskDone(task: Command, home: () => string): void {
  task
    .command('done <id>')
    .description('mark a task done')
    .action(async (id: string) => {
      const number = requireId(id, 'task');
      if (number === undefined) return;
      process.exitCode = await withHome(home(), ({ services }) => {
        const done = services.tasks.complete(number);
        if (!done.ok) return refused(done, { kind: 'task', number });
        out(`Done: task #${number}.`);
        return EXIT.ok;
      });
    });
}

function registerTaskDelete(task: Command, home: () => string): void {
  task
    .command('delete <id>')
    .description('delete a task')
    .action(async (id: string) => {
      const number = requireId(id, 'task');
      if (number === undefined) return;
      process.exitCode = await withHome(home(), ({ services }) => {
        const deleted = services.tasks.delete(number);
        if (!deleted.ok) return refused(deleted, { kind: 'task', number });
        out(`Deleted task #${number}.`);
        return EXIT.ok;
      });
    });
}
