import { posix } from 'node:path';
import { checkLink, checkLinkCopies, holdsLinks } from './check-links.js';
import { destructiveTarget, runTimeTarget } from './destructive-target.js';
import type { FileEffects } from './file-effect-types.js';
import { overlap, segmentMatches } from './path-glob.js';
import { refsOf, SAFE_DEVICES, shown, UNKNOWN_CWD } from './path-refs.js';
import { insideWorkspace, type PathRef, resolvePaths } from './resolve-paths.js';
import type { RuleHost } from './rule-host.js';
import { processReads, secretFolderRead, secretName, secretRead, secretWrite } from './secret-paths.js';
import {
  type AnalysisContext,
  MKTEMP_FOLDER,
  protectedFolders,
  RUNTIME,
  showPath,
  type WordValue,
  within,
} from './shell-paths.js';

/** Workspace files Wren reads into its system prompt (as in write_file's assessment). */
const INSTRUCTION_FILES = /^(SOUL|AGENTS|USER|MEMORY|HEARTBEAT)\.md$|^skills(\/|$)/;
const INSTRUCTION_SAMPLES = ['SOUL.md', 'AGENTS.md', 'USER.md', 'MEMORY.md', 'HEARTBEAT.md'];
/** Files git runs or reads program names from: hooks and the repository config. */
const GIT_PROGRAM_FILES = /(^|\/)\.git\/(hooks(\/|$)|config$)/;

/** Applies the path rules to everything a command does to files. */
export function checkFileEffects(host: RuleHost, effects: FileEffects): void {
  for (const signature of effects.signatures) host.flag(signature);
  for (const reason of effects.unanalysable) host.cannot(reason);
  for (const value of effects.writes) checkWrite(host, value);
  for (const value of effects.folders) checkWrite(host, value, true);
  for (const remove of effects.deletes) checkDelete(host, remove.value, remove);
  for (const link of effects.links) checkLink(host, link);
  for (const copy of effects.linkCopies) checkLinkCopies(host, copy);
  for (const copy of effects.into) checkInto(host, copy.folder, copy.sources);
  for (const folder of effects.unpacks) checkUnpack(host, folder);
  for (const { script, where } of effects.commands) {
    if (script.dynamic) host.cannot(`${where} with a command built at run time`);
    else host.nestedScript(script.text, where);
  }
  for (const value of effects.reads) checkRead(host, value, false, true);
  for (const value of effects.recursiveReads) checkRead(host, value, true, true);
  for (const change of effects.recursiveChanges) {
    if (change.value.dynamic) continue;
    for (const ref of refsOf(host, change.value)) {
      const signature = destructiveTarget(ref, change.value.text, change.verb, host.ctx);
      if (signature) host.flag(signature);
    }
  }
}

/**
 * A write (create, overwrite, append, change mode) to `value`: Wren's instruction files, git hooks, devices,
 * protected locations, and anywhere outside the workspace except safe devices and scratch space in /tmp
 * (`folder`: a folder created there, at any depth).
 */
export function checkWrite(host: RuleHost, value: WordValue, folder = false): void {
  const { ctx } = host;
  for (const ref of refsOf(host, value)) {
    checkInWorkspace(host, ref);
    const secret = folder ? undefined : secretWrite(ref, ctx);
    if (secret) host.flag(`writes a secret file (${secret})`);
    // A `.git` file points git at another repository (`gitdir: …`), whose config may run programs.
    if (!folder && ref.path.endsWith('/.git')) host.flag('git config that runs a program (.git)');
    if (ref.path.startsWith('/dev/')) {
      if (SAFE_DEVICES.test(ref.path)) continue;
      host.flag(`writes to device ${ref.path}`);
    }
    for (const place of protectedPlaces(ref, ctx)) host.flag(`writes into ${place}`);
    if (!insideWorkspace(ref, ctx) && !scratch(ref, folder))
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
  if (options.verb && value.dynamic && !options.move) host.flag(runTimeTarget(value, options.verb));
  for (const ref of refsOf(host, value, host.cwds, { followLast: false })) {
    checkInWorkspace(host, ref);
    const inside = insideWorkspace(ref, ctx);
    if (options.verb && !(options.filtered && inside)) {
      const signature = destructiveTarget(ref, value.text, options.verb, ctx);
      if (signature) host.flag(signature);
    }
    if (!inside && !within(ref.path, MKTEMP_FOLDER))
      host.flag(`deletes outside the workspace (${showPath(ref.path, ctx)})`);
  }
}

/**
 * A copy or move into a folder (`mv e/SOUL.md .`, `cp -r e/skills .`): each source keeps its name there,
 * which may be one of Wren's instruction files. A source that stands for a folder's contents (`e/.`) brings
 * names not known here.
 */
function checkInto(host: RuleHost, folder: WordValue, sources: WordValue[]): void {
  for (const source of sources) {
    const name = posix.basename(source.text.replace(/\/+$/, ''));
    if (name === '.' || name === '..' || name === '') {
      checkUnpack(host, folder);
      continue;
    }
    const joined: WordValue = { ...folder, text: `${folder.text}/${name}`, glob: folder.glob || source.glob };
    const { refs } = resolvePaths(joined, host.cwds, host.ctx);
    for (const ref of refs) {
      checkInWorkspace(host, ref);
      const secret = secretWrite(ref, host.ctx);
      if (secret) host.flag(`writes a secret file (${secret})`);
    }
  }
}

/**
 * A folder that receives files whose names are not known here (an archive extracted, a patch applied):
 * in the workspace root or under `skills/` they may be Wren's instructions. Links among them are unknown.
 */
export function checkUnpack(host: RuleHost, folder: WordValue): void {
  checkWrite(host, folder);
  const { ctx } = host;
  for (const ref of resolvePaths(folder, host.cwds, ctx).refs) {
    const skills = posix.join(ctx.workspace, 'skills');
    if (ref.path === ctx.workspace || within(ref.path, skills))
      host.flag(`may change Wren's own instructions (${showPath(ref.path, ctx)})`);
    holdsLinks(host, ref.path);
  }
}

/**
 * A read of `value`: secret files outside the workspace (globs included), process environments and
 * memory; `recursive` also for folders that hold secret folders. Option values (`--key=FILE`, `if=FILE`)
 * and curl's `@FILE` count too. `contents`: the program reads what the file holds, so a path only known at
 * run time (or from an unknown folder) is unanalysable.
 */
export function checkRead(host: RuleHost, value: WordValue, recursive: boolean, contents: boolean): void {
  const { ctx } = host;
  if (contents && !value.text.startsWith('-')) {
    const whole = resolvePaths(value, host.cwds, ctx);
    if (value.dynamic || whole.unknown)
      host.cannot(`a file read at a path only known at run time (${shown(value.text)})`);
    else if (whole.unknownCwd) host.cannot(UNKNOWN_CWD);
  }
  for (const text of readSpellings(value.text)) {
    const { refs, unknownCwd } = resolvePaths({ ...value, text }, host.cwds, ctx);
    if (unknownCwd && secretName(posix.basename(text), ctx.glob))
      host.flag(`reads a secret file outside the workspace (${shown(text)})`);
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
export function checkInWorkspace(host: RuleHost, ref: PathRef): void {
  const place = instructionTarget(ref, host.ctx);
  if (place) host.flag(`changes Wren's own instructions (${place})`);
  const git = GIT_PROGRAM_FILES.exec(ref.path);
  if (git) host.flag(`git config that runs a program (${ref.path.slice(git.index + git[1]!.length)})`);
}

/** The workspace-relative instruction file (or skills folder) a path or pattern can name. */
export function instructionTarget(ref: PathRef, ctx: AnalysisContext): string | undefined {
  if (
    !within(ref.path, ctx.workspace) &&
    !(ref.pattern && overlap(ref.path, ctx.workspace, ctx.glob)?.inside)
  )
    return;
  const relative = posix.relative(ctx.workspace, ref.path);
  if (!ref.pattern) return INSTRUCTION_FILES.test(relative) ? relative : undefined;
  const [first = '', ...rest] = relative.split('/');
  const names =
    (rest.length === 0 && INSTRUCTION_SAMPLES.some((sample) => segmentMatches(first, sample, ctx.glob))) ||
    segmentMatches(first, 'skills', ctx.glob) ||
    first.includes(RUNTIME);
  return names ? shown(relative) : undefined;
}

/** The protected locations (`~/.ssh`, `/etc`, Wren's home …) a written path or pattern falls in. */
function protectedPlaces(ref: PathRef, ctx: AnalysisContext): string[] {
  if (insideWorkspace(ref, ctx)) return [];
  return protectedFolders(ctx)
    .filter(({ folder }) => {
      if (!ref.pattern) return within(ref.path, folder);
      const found = overlap(ref.path, folder, ctx.glob);
      return found?.self === true || found?.inside === true;
    })
    .map(({ shown: place }) => place);
}

/**
 * Scratch space to write to: a file or folder directly in /tmp, named exactly, or anything in the folder
 * `$(mktemp -d)` made; `folder` (a folder created, which overwrites nothing) at any depth under a /tmp
 * folder whose name does not start with a dot. `/tmp` itself never is scratch.
 */
function scratch(ref: PathRef, folder: boolean): boolean {
  if (ref.pattern) return false;
  if (/^\/tmp\/[^/]+$/.test(ref.path) || within(ref.path, MKTEMP_FOLDER)) return true;
  return folder && /^\/tmp\/[^./][^/]*\//.test(ref.path);
}
