import { posix } from 'node:path';
import { destructiveTarget, runTimeTarget } from './destructive-target.js';
import type { FileEffects, Link } from './file-effects.js';
import { overlap, segmentMatches } from './path-glob.js';
import { type Cwd, insideWorkspace, type PathRef, resolvePaths } from './resolve-paths.js';
import type { RuleHost } from './rule-host.js';
import { processReads, secretFolderRead, secretName, secretRead } from './secret-paths.js';
import {
  protectedFolders,
  RUNTIME,
  type ShellContext,
  showPath,
  type WordValue,
  within,
} from './shell-paths.js';

/** Devices that are safe to write to (and to link to). */
const SAFE_DEVICES = /^\/dev\/(null|zero|stdout|stderr|stdin|tty|fd\/\d+|full|random|urandom)$/;
/** Workspace files Wren reads into its system prompt (as in write_file's assessment). */
const INSTRUCTION_FILES = /^(SOUL|AGENTS|USER|MEMORY|HEARTBEAT)\.md$|^skills(\/|$)/;
const INSTRUCTION_SAMPLES = ['SOUL.md', 'AGENTS.md', 'USER.md', 'MEMORY.md', 'HEARTBEAT.md'];
/** Files git runs or reads program names from: hooks and the repository config. */
const GIT_PROGRAM_FILES = /(^|\/)\.git\/(hooks(\/|$)|config$)/;
const UNKNOWN_CWD = 'a relative path after `cd` to a folder only known at run time';

/** Applies the path rules to everything a command does to files. */
export function checkFileEffects(host: RuleHost, effects: FileEffects): void {
  for (const signature of effects.signatures) host.flag(signature);
  for (const reason of effects.unanalysable) host.cannot(reason);
  for (const value of effects.writes) checkWrite(host, value);
  for (const remove of effects.deletes) checkDelete(host, remove.value, remove);
  for (const link of effects.links) checkLink(host, link);
  for (const value of effects.reads) checkRead(host, value, false);
  for (const value of effects.recursiveReads) checkRead(host, value, true);
  for (const change of effects.recursiveChanges) {
    if (change.value.dynamic) continue;
    for (const ref of refsOf(host, change.value)) {
      const signature = destructiveTarget(ref, change.value.text, change.verb, host.ctx);
      if (signature) host.flag(signature);
    }
  }
}

function refsOf(host: RuleHost, value: WordValue, cwds: readonly Cwd[] = host.cwds): PathRef[] {
  const { refs, unknownCwd } = resolvePaths(value, cwds, host.ctx);
  if (unknownCwd) host.cannot(UNKNOWN_CWD);
  return refs;
}

/**
 * A write (create, overwrite, append, change mode) to `value`: Wren's instruction files, git hooks, devices,
 * protected locations, and anywhere outside the workspace except safe devices and a file directly in /tmp.
 */
export function checkWrite(host: RuleHost, value: WordValue): void {
  const { ctx } = host;
  for (const ref of refsOf(host, value)) {
    checkInWorkspace(host, ref);
    if (ref.path.startsWith('/dev/')) {
      if (SAFE_DEVICES.test(ref.path)) continue;
      host.flag(`writes to device ${ref.path}`);
    }
    for (const place of protectedPlaces(ref, ctx)) host.flag(`writes into ${place}`);
    if (!insideWorkspace(ref, ctx) && !scratch(ref))
      host.flag(`writes outside the workspace (${showPath(ref.path, ctx)})`);
  }
}

/**
 * A delete of `value` (a move deletes its source): the special folders when recursive (or a move),
 * Wren's instruction files, and anything outside the workspace, /tmp included (what is there may be another
 * program's). `filtered` (a `find` with tests) spares the special-folder check inside the workspace.
 */
export function checkDelete(
  host: RuleHost,
  value: WordValue,
  options: { verb?: string; move?: boolean; filtered?: boolean },
): void {
  const { ctx } = host;
  // A move of a file named at run time (`mv "$f" done/`) is everyday; a recursive delete of one is not.
  if (options.verb && value.dynamic && !options.move) host.flag(runTimeTarget(value, options.verb));
  for (const ref of refsOf(host, value)) {
    checkInWorkspace(host, ref);
    const inside = insideWorkspace(ref, ctx);
    if (options.verb && !(options.filtered && inside)) {
      const signature = destructiveTarget(ref, value.text, options.verb, ctx);
      if (signature) host.flag(signature);
    }
    if (!inside) host.flag(`deletes outside the workspace (${showPath(ref.path, ctx)})`);
  }
}

/** A link whose target lies outside the workspace lets later commands reach it through a workspace path. */
function checkLink(host: RuleHost, link: Link): void {
  if (link.target.text.startsWith(RUNTIME)) {
    host.cannot('a link to a path only known at run time');
    return;
  }
  let folders: readonly Cwd[] = host.cwds;
  // A relative symbolic target is resolved from the folder the link is in, not from the working folder.
  if (link.symbolic && link.folder) folders = refsOf(host, link.folder).map((ref) => ref.path);
  else if (link.symbolic && link.path)
    folders = refsOf(host, link.path).map((ref) => posix.dirname(ref.path));
  for (const ref of refsOf(host, link.target, folders)) {
    if (!insideWorkspace(ref, host.ctx) && !SAFE_DEVICES.test(ref.path))
      host.flag(`links to a path outside the workspace (${showPath(ref.path, host.ctx)})`);
  }
}

/**
 * A read of `value`: secret files outside the workspace (globs included), process environments and
 * memory; `recursive` also for folders that hold secret folders. Option values (`--key=FILE`, `if=FILE`)
 * and curl's `@FILE` count too.
 */
export function checkRead(host: RuleHost, value: WordValue, recursive: boolean): void {
  const { ctx } = host;
  for (const text of readSpellings(value.text)) {
    const { refs, unknownCwd } = resolvePaths({ ...value, text }, host.cwds, ctx);
    if (unknownCwd && secretName(posix.basename(text)))
      host.flag(`reads a secret file outside the workspace (${text.replaceAll(RUNTIME, '$…')})`);
    for (const ref of refs) {
      for (const signature of processReads(ref, ctx, recursive)) host.flag(signature);
      const secret = secretRead(ref, ctx);
      if (secret) host.flag(`reads a secret file outside the workspace (${secret})`);
      const folder = recursive ? secretFolderRead(ref, ctx) : undefined;
      if (folder) host.flag(`reads a folder that holds secrets (${folder})`);
    }
  }
}

/** The paths an argument may read: itself, an option's value after `=`, a file named after `@` or `<`. */
function readSpellings(text: string): string[] {
  const spellings = [text];
  const value = /^[^=/]*=(.+)$/.exec(text)?.[1];
  if (value !== undefined) spellings.push(value);
  for (const spelling of [...spellings]) {
    if (/^[@<]./.test(spelling)) spellings.push(spelling.slice(1).replace(/;.*$/, ''));
  }
  return spellings.filter(
    (spelling) => spelling !== '' && !spelling.startsWith('-') && !spelling.includes('://'),
  );
}

/** Writes and deletes inside the workspace that still matter: Wren's instructions and git's programs. */
function checkInWorkspace(host: RuleHost, ref: PathRef): void {
  const { ctx } = host;
  const place = instructionTarget(ref, ctx);
  if (place) host.flag(`changes Wren's own instructions (${place})`);
  const git = GIT_PROGRAM_FILES.exec(ref.path);
  if (git) host.flag(`git config that runs a program (${ref.path.slice(git.index + git[1]!.length)})`);
}

/** The workspace-relative instruction file (or skills folder) a path or pattern can name. */
function instructionTarget(ref: PathRef, ctx: ShellContext): string | undefined {
  if (!within(ref.path, ctx.workspace) && !(ref.pattern && overlap(ref.path, ctx.workspace)?.inside)) return;
  const relative = posix.relative(ctx.workspace, ref.path);
  if (!ref.pattern) return INSTRUCTION_FILES.test(relative) ? relative : undefined;
  const [first = '', ...rest] = relative.split('/');
  const names =
    (rest.length === 0 && INSTRUCTION_SAMPLES.some((sample) => segmentMatches(first, sample))) ||
    segmentMatches(first, 'skills') ||
    first.includes(RUNTIME);
  return names ? relative.replaceAll(RUNTIME, '$…') : undefined;
}

/** The protected locations (`~/.ssh`, `/etc`, Wren's home …) a written path or pattern falls in. */
function protectedPlaces(ref: PathRef, ctx: ShellContext): string[] {
  if (insideWorkspace(ref, ctx)) return [];
  return protectedFolders(ctx)
    .filter(({ folder }) => {
      if (!ref.pattern) return within(ref.path, folder);
      const found = overlap(ref.path, folder);
      return found?.self === true || found?.inside === true;
    })
    .map(({ shown }) => shown);
}

/**
 * A file (or folder) directly in /tmp, named exactly: scratch space to write to. Deeper paths may be
 * another program's folder, and `/tmp` itself never is scratch.
 */
function scratch(ref: PathRef): boolean {
  return !ref.pattern && /^\/tmp\/[^/]+$/.test(ref.path);
}
