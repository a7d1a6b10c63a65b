/**
 * The shell analyser: a bash lexer and script walker, word expansions (brace, glob, parameter), option
 * parsing, per-program effect tables and the danger rules that judge a command before it runs. Pure: no
 * file system, no processes, no environment reads — what needs the disk (links that exist now) is passed
 * in as an ExistingLinks. This file is the module's only surface (dependency rule `shell-through-its-index`).
 */
export { analyseScript, type CommandAnalysis } from './analyse-script.js';
export { type ExistingLinks, RUNTIME, type ShellContext, within } from './shell-paths.js';
