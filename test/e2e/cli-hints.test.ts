import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cliEnv, makeHome, runCli } from '../support/wren-home.js';

/**
 * Every `wren …` command that Wren's messages, the web app and the docs tell the owner to run must exist: a hint
 * naming a command that is not there (`wren models presets` was one) sends a new user to an error.
 */

/** The command words of each `wren …` in backticks, per file (arguments and options included until `--`). */
function hintsIn(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/`(?:\.\/)?wren((?: [a-z][a-z0-9-]*)+)/g)].map((match) => match[1]!.trim());
}

function hintedCommands(): Map<string, string[]> {
  const files = execFileSync('git', ['ls-files', 'README.md', 'docs', 'src', 'web/src'], { encoding: 'utf8' })
    .split('\n')
    .filter((file) => /\.(ts|tsx|md)$/.test(file) && !/\.test\.tsx?$/.test(file));
  const commands = new Map<string, string[]>();
  for (const file of files) {
    for (const words of hintsIn(file)) {
      commands.set(words, [...(commands.get(words) ?? []), file]);
    }
  }
  return commands;
}

/**
 * Whether `wren WORDS --help` shows a command whose path is WORDS, or a prefix of them followed by
 * arguments that command takes (`mcp add memory` → `mcp add <name>`).
 */
function names(usage: string, words: string): boolean {
  const line = /^Usage: wren (.*)$/m.exec(usage)?.[1] ?? '';
  const path = line.split(' ').filter((token) => /^[a-z]/.test(token));
  const asked = words.split(' ');
  if (path.length === 0 || path.some((word, index) => asked[index] !== word)) return false;
  if (path.length === asked.length) return true;
  const takesArguments = line
    .split(' ')
    .some(
      (token) => token.startsWith('<') || (token.startsWith('[') && !/^\[(options|command)\]$/.test(token)),
    );
  return takesArguments;
}

describe('hints name real commands', () => {
  it('finds the hints (the check itself works)', () => {
    const commands = hintedCommands();
    expect(commands.get('onboard')).toBeDefined();
    expect(commands.get('web open')).toBeDefined();
    expect(names('Usage: wren models [options] [command]\n', 'models presets')).toBe(false);
    expect(names('Usage: wren mcp add [options] <name> [command...]\n', 'mcp add memory')).toBe(true);
    expect(names('Usage: wren [options] [command]\n', 'nosuch')).toBe(false);
  });

  it('every `wren …` hint in messages, the web app and the docs answers --help as that command', async () => {
    const home = makeHome('');
    const wrong: string[] = [];
    const commands = [...hintedCommands()];
    for (let index = 0; index < commands.length; index += 4) {
      await Promise.all(
        commands.slice(index, index + 4).map(async ([words, files]) => {
          const help = await runCli([...words.split(' '), '--help'], cliEnv(home));
          if (help.code !== 0 || !names(help.stdout, words))
            wrong.push(`wren ${words} (in ${[...new Set(files)].join(', ')})`);
        }),
      );
    }
    expect(wrong).toEqual([]);
  }, 180_000);
});
