import { posix } from 'node:path';
import type { WordValue } from './shell-paths.js';

/** Shells: a program piped into one of these runs as code. */
export const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh']);

const INTERPRETER =
  /^(python[\d.]*|pypy[\d.]*|perl[\d.]*|ruby[\d.]*|node|nodejs|deno|bun|php[\d.]*|lua[\d.]*|tclsh|Rscript|pwsh|osascript)$/;

/** Flags after which an interpreter takes its program from the next argument instead of stdin. */
const PROGRAM_FLAGS: Record<string, string[]> = {
  shell: ['-c'],
  python: ['-c', '-m'],
  node: ['-e', '--eval', '-p', '--print'],
  other: ['-e', '-E', '-r', '-c'],
};
/** Flags that take a value (so that value is not the script file). */
const VALUE_FLAGS = new Set(['-o', '+o', '-O', '+O', '-W', '-X', '-r', '--require', '-I', '-M', '-f']);

/** Whether `name` is an interpreter that can run a program it reads. */
export function isInterpreter(name: string): boolean {
  return SHELLS.has(name) || INTERPRETER.test(name);
}

function family(name: string): keyof typeof PROGRAM_FLAGS {
  if (SHELLS.has(name)) return 'shell';
  if (/^(python|pypy)/.test(name)) return 'python';
  if (/^(node|nodejs|deno|bun)$/.test(name)) return 'node';
  return 'other';
}

/** How an interpreter invocation gets its program. */
export type ProgramSource =
  | { from: 'stdin' }
  | { from: 'argument'; value: WordValue }
  | { from: 'file'; value: WordValue };

/** Where an interpreter call (`bash -c …`, `python3 script.py`, `sh`) takes its program from. */
export function programSource(name: string, args: WordValue[]): ProgramSource {
  const flags = PROGRAM_FLAGS[family(name)]!;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    const text = arg.text;
    if (flags.includes(text)) {
      const value = args[index + 1];
      return value ? { from: 'argument', value } : { from: 'stdin' };
    }
    if (family(name) === 'shell' && /^-[a-zA-Z]*c[a-zA-Z]*$/.test(text)) {
      const value = args.slice(index + 1).find((candidate) => !candidate.text.startsWith('-'));
      return value ? { from: 'argument', value } : { from: 'stdin' };
    }
    if (text === '-' || text === '-s') return { from: 'stdin' };
    if (text === '--') {
      const value = args[index + 1];
      return value ? { from: 'file', value } : { from: 'stdin' };
    }
    if (VALUE_FLAGS.has(text)) {
      index++;
      continue;
    }
    if (text.startsWith('-') || text.startsWith('+')) continue;
    return { from: 'file', value: arg };
  }
  return { from: 'stdin' };
}

/** The program name a static command word runs (`/usr/bin/rm` → `rm`). */
export function programName(text: string): string {
  return posix.basename(text);
}

/** Programs that reach the network; an `exec` call running one may send data off the machine. */
export const NETWORK_PROGRAMS = new Set([
  'dig',
  'host',
  'nslookup',
  'ping',
  'curl',
  'wget',
  'ssh',
  'scp',
  'sftp',
  'rsync',
  'nc',
  'ncat',
  'netcat',
  'telnet',
  'ftp',
  'socat',
  'http',
  'aria2c',
]);

/** The host an argument reaches (`https://host/…`, `git@host:…`, `user@host:path`), if it names one. */
export function hostOf(text: string): string | undefined {
  const url = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?(\[[^\]]+\]|[^/:?#]+)/i.exec(text);
  if (url) return url[1]!.toLowerCase();
  const scp = /^[\w.-]+@([\w.-]+):/.exec(text);
  return scp ? scp[1]!.toLowerCase() : undefined;
}
