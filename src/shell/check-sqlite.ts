import { checkRead, checkWrite } from './check-file-effects.js';
import type { RuleHost } from './rule-host.js';
import { evaluateWord, type WordValue } from './shell-paths.js';
import type { SimpleCommand } from './shell-script.js';

/** sqlite3 options that take a value (one dash or two). */
const VALUES = /^-(separator|newline|nullvalue|vfs|mmap|maxsize|heap|lookaside|pagecache|escape|nonce)$/;
/** Dot commands that only show or format (others write files, read files, run programs or open databases). */
const SAFE_DOT =
  /^\.(tables?|schema|fullschema|headers?|mode|indexes|indices|dump|width|separator|nullvalue|timer|quit|exit|help|databases|show|print|stats|eqp|changes|bail|echo|explain|count|dbinfo|lint|parameter|limit|prompt|scanstats)(\s|$)/;
/** SQL that writes or reads files, or loads code. */
const RISKY =
  /\bvacuum\b[^;]*\binto\b|\battach\b|\b(load_extension|writefile|readfile|edit|fts3_tokenizer|fsdir)\s*\(/i;
const STDIN_FILE = new Set(['<', '<>']);

/**
 * `sqlite3 DB [SQL…]`: the database is written (read with `-readonly`), wherever it is; SQL and `-cmd`
 * text that writes or reads other files (`VACUUM INTO`, `ATTACH`, `writefile()`, `.output`, `.save`),
 * runs programs (`.shell`) or loads code is unanalysable, and so is SQL read from a file or a pipe.
 */
export function checkSqlite(host: RuleHost, name: string, args: WordValue[], command: SimpleCommand): void {
  if (name !== 'sqlite3' && name !== 'sqlite') return;
  let database: WordValue | undefined;
  let readonly = false;
  const sql: WordValue[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    const option = arg.text.replace(/^--/, '-');
    if (option === '-init') host.cannot('sqlite3 -init runs commands from a file');
    if (option === '-cmd' && args[index + 1]) sql.push(args[index + 1]!);
    if (option === '-A' || option.startsWith('-A'))
      host.cannot('sqlite3 -A works on the files of an archive');
    if (option === '-readonly') readonly = true;
    if (VALUES.test(option) || option === '-cmd' || option === '-init') index++;
    else if (!arg.text.startsWith('-')) {
      if (database) sql.push(arg);
      else database = arg;
    }
  }
  if (database && database.text !== ':memory:' && database.text !== '') {
    if (readonly) checkRead(host, database, false, true);
    else checkWrite(host, database);
  }
  const input = command.redirects.find((redirect) => redirect.heredoc || redirect.op === '<<<');
  if (input) sql.push(evaluateWord({ parts: input.heredoc ? input.heredoc.parts : input.target.parts }));
  if (command.stdinFromPipe || command.redirects.some((redirect) => STDIN_FILE.has(redirect.op)))
    host.cannot('sqlite3 reading SQL from its input');
  for (const text of sql) checkSql(host, text);
}

function checkSql(host: RuleHost, sql: WordValue): void {
  if (sql.dynamic) {
    host.cannot('sqlite3 with SQL built at run time');
    return;
  }
  for (const line of sql.text.split('\n').map((each) => each.trim())) {
    if (line.startsWith('.') && !SAFE_DOT.test(line))
      host.cannot(`sqlite3 ${line.split(/\s/)[0]} (a dot command that reaches files or programs)`);
  }
  const risky = RISKY.exec(sql.text);
  if (risky) host.cannot(`sqlite3 SQL that reaches other files or loads code (${risky[0].trim()})`);
}
