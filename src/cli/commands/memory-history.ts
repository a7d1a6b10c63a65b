import type { Command } from 'commander';
import type { FileVersionEntry } from '../../services/memory-versions.js';
import type { OwnerServices } from '../../services/owner-services.js';
import type { ServiceFailure } from '../../services/service-failure.js';
import { EXIT } from '../report-failure.js';
import { wholeNumber } from '../whole-number.js';

const out = (text: string) => process.stdout.write(`${text}\n`);

type Opened = { workspace: string; services: OwnerServices; timezone: string };
type Run = (home: string, run: (opened: Opened) => Promise<number> | number) => Promise<number>;

/** A version id argument, or undefined after saying why (exit 2). */
function versionId(text: string): number | undefined {
  if (/^[1-9]\d{0,15}$/.test(text)) return Number(text);
  process.stderr.write(`wren: "${text}" is not a version id (a positive number; see wren memory log)\n`);
  process.exitCode = EXIT.usage;
  return undefined;
}

/** Says why on stderr: 1 for an unknown version, 2 for bad input. */
function failed(failure: ServiceFailure): number {
  process.stderr.write(`wren: ${failure.error}\n`);
  return failure.code === 'not_found' && failure.error.startsWith('There is no version')
    ? EXIT.failed
    : EXIT.usage;
}

/** One `wren memory log` line: id, time, author, file, size, note. */
export function versionLine(version: FileVersionEntry, stamp: (ms: number) => string): string {
  const note = version.note ? `  ${version.note}` : '';
  return `#${version.id}  ${stamp(version.createdAt)}  ${version.author.padEnd(14)}  ${version.path}  ${version.bytes} B${note}`;
}

/**
 * `wren memory log [FILE]`, `diff ID [ID2]`, `revert ID`: the history of the instruction files (see
 * docs/memory.md, History). Exit codes: 0 ok, 1 an unknown version, 2 bad input.
 */
export function registerMemoryHistory(memory: Command, home: () => string, withHome: Run): void {
  memory
    .command('log [file]')
    .description(
      'versions of the instruction files (MEMORY.md, USER.md, SOUL.md, AGENTS.md, HEARTBEAT.md, skills/<name>/SKILL.md), newest first: id, time, who, size, note',
    )
    .option('--limit <n>', 'how many (default 50)', (value) => wholeNumber(value, 1, 1000))
    .option('--json', 'print JSON')
    .action(async (file: string | undefined, options: { limit?: number; json?: boolean }) => {
      const { formatStamp } = await import('../../memory/format-time.js');
      process.exitCode = await withHome(home(), ({ services, workspace, timezone }) => {
        const listed = services.memoryFiles.versions({
          workspace,
          limit: options.limit ?? 50,
          ...(file ? { file } : {}),
        });
        if (!listed.ok) return failed(listed);
        if (options.json) out(JSON.stringify(listed.versions, null, 2));
        else if (listed.versions.length === 0) out('No versions recorded yet.');
        else
          out(
            listed.versions
              .map((version) => versionLine(version, (ms) => formatStamp(ms, timezone)))
              .join('\n'),
          );
        return EXIT.ok;
      });
    });

  memory
    .command('diff <id> [id2]')
    .description('what version ID changed (a unified diff against the version before it), or from ID to ID2')
    .action(async (first: string, second: string | undefined) => {
      const from = versionId(first);
      const to = second === undefined ? undefined : versionId(second);
      if (from === undefined || (second !== undefined && to === undefined)) return;
      process.exitCode = await withHome(home(), ({ services }) => {
        const found =
          to === undefined ? services.memoryFiles.version(from) : services.memoryFiles.version(to, from);
        if (!found.ok) return failed(found);
        out(
          found.detail.diff.trimEnd() ||
            `No change: #${found.detail.previousId ?? from} and #${found.detail.version.id} hold the same text.`,
        );
        return EXIT.ok;
      });
    });

  memory
    .command('revert <id>')
    .description("write version ID's text back to its file, as a new version (by revert)")
    .action(async (text: string) => {
      const id = versionId(text);
      if (id === undefined) return;
      process.exitCode = await withHome(home(), async ({ services, workspace }) => {
        const restored = await services.memoryFiles.restore(workspace, id, { author: 'revert' });
        if (!restored.ok) {
          if (restored.code === 'conflict') {
            process.stderr.write(`wren: ${restored.error}\n`);
            return EXIT.failed;
          }
          return failed(restored);
        }
        out(
          restored.changed
            ? `Restored ${restored.path} to version #${id}${restored.versionId ? ` (now version #${restored.versionId})` : ''}.`
            : `${restored.path} already holds version #${id}'s text; nothing changed.`,
        );
        return EXIT.ok;
      });
    });
}
