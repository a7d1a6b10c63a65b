import { posix } from 'node:path';
import type { Link } from './file-effect-types.js';
import { refsOf, SAFE_DEVICES } from './path-refs.js';
import { type Cwd, insideWorkspace, type PathRef, resolvePaths } from './resolve-paths.js';
import type { RuleHost } from './rule-host.js';
import { secretRead } from './secret-paths.js';
import { expandTilde, literalValue, RUNTIME, showPath, type WordValue, within } from './shell-paths.js';

/**
 * Installed files in the system's read-only trees (`/usr/share/dict/words`, `/usr/bin/python3`): a link to
 * one only gives a read path; the trees themselves (`/usr`) are not.
 */
const SYSTEM_FILE = /^\/(usr|bin|sbin|lib|lib32|lib64|opt|snap)\/[^/]+/;
/** Links the kernel makes: what a copy of one (`cp -P`) points to. */
const PROC_ROOT = /^\/proc\/[^/]+(\/task\/[^/]+)?\/root$/;
const PROC_CWD = /^\/proc\/(self|thread-self)(\/task\/[^/]+)?\/cwd$/;
const MAGIC =
  /^\/(proc\/[^/]+(\/task\/[^/]+)?\/(cwd|exe|fd\/[^/]+|map_files\/[^/]+)|dev\/fd\/[^/]+|dev\/std(in|out|err))$/;

/**
 * A link lets later commands reach its target through a workspace path: one to a path outside the workspace
 * (other than safe devices and installed system files) is a signature. The link is remembered, so later
 * paths in the script that go through it are followed (`ln -s / x && cat x/…`).
 */
export function checkLink(host: RuleHost, link: Link): void {
  if (link.target.text.startsWith(RUNTIME)) {
    host.cannot('a link to a path only known at run time');
    return;
  }
  const paths = linkPaths(host, link);
  const relative = link.symbolic && !/^[/~]/.test(link.target.text);
  // A relative symbolic target is resolved from the folder the link is in, not from the working folder.
  const folders: readonly Cwd[] =
    relative && paths.length > 0 ? paths.map((path) => posix.dirname(path)) : host.cwds;
  const targets = refsOf(host, link.target, folders);
  for (const ref of targets) flagTarget(host, ref);
  for (const path of paths) {
    const target =
      targets.length === 1 && !targets[0]!.pattern && !link.target.dynamic ? targets[0]!.path : undefined;
    remember(host, path, { ...(target ? { target } : {}), ...(relative ? { text: link.target.text } : {}) });
  }
}

/** The link's own absolute path(s): named, or in a folder under its target's name. */
function linkPaths(host: RuleHost, link: Link): string[] {
  const name = posix.basename(link.target.text.replace(/\/+$/, ''));
  const at = link.path ?? (link.folder ? { ...link.folder, text: `${link.folder.text}/${name}` } : undefined);
  if (!at) return [];
  return refsOf(host, at, host.cwds, { followLast: false })
    .filter((ref) => !ref.pattern)
    .map((ref) => ref.path);
}

function flagTarget(host: RuleHost, ref: PathRef): void {
  const { ctx } = host;
  if (insideWorkspace(ref, ctx) || SAFE_DEVICES.test(ref.path)) return;
  if (!ref.pattern && SYSTEM_FILE.test(ref.path) && !secretRead(ref, ctx)) return;
  host.flag(`links to a path outside the workspace (${showPath(ref.path, ctx)})`);
}

function remember(host: RuleHost, path: string, link: { target?: string; text?: string }): void {
  host.ctx.links?.set(path, link);
}

/** Files extracted into `folder` are not known here: any of them may be a link, so paths below are unknown. */
export function holdsLinks(host: RuleHost, folder: string): void {
  host.ctx.links?.set(folder, { target: folder, holdsLinks: true });
}

/**
 * A move or a copy that keeps links (`mv`, `cp -P`/`-a`/`-R`, `rsync -l`/`-a`): a source that is a link
 * (made earlier in the script, existing on disk now, or a kernel link such as `/proc/self/root`), or a link
 * the script made below a source folder, is made again at the destination, where a relative target may
 * point elsewhere. A source only known at run time may be a link: unanalysable.
 */
export function checkLinkCopies(host: RuleHost, copy: { sources: WordValue[]; target: WordValue }): void {
  for (const source of copy.sources) {
    if (source.dynamic) {
      host.cannot('a copy or move of a path only known at run time (it may be a link)');
      continue;
    }
    const spelled = posix.normalize(expandTilde(source.text, host.ctx));
    const magic = spelled.startsWith('/') ? magicTarget(host, spelled) : undefined;
    const name = posix.basename(source.text.replace(/\/+$/, ''));
    const destinations = destinationsOf(host, copy.target, name);
    if (magic !== undefined) {
      for (const destination of destinations) made(host, destination, magic);
      continue;
    }
    for (const ref of resolvePaths(source, host.cwds, host.ctx, { followLast: false }).refs) {
      if (ref.pattern) continue;
      for (const [path, text] of linksAt(host, ref.path))
        for (const destination of destinations)
          made(host, posix.join(destination, posix.relative(ref.path, path)), text);
    }
  }
}

/** What a kernel link copied as a link points to: `/` for `/proc/<pid>/root`; undefined when not one. */
function magicTarget(host: RuleHost, path: string): string | undefined {
  if (PROC_ROOT.test(path)) return '/';
  if (PROC_CWD.test(path) && host.cwds.length === 1 && host.cwds[0] !== undefined) return host.cwds[0];
  return MAGIC.test(path) ? RUNTIME : undefined;
}

/** The destination paths of a copy: the target itself, or the source's name inside it when it is a folder. */
function destinationsOf(host: RuleHost, target: WordValue, name: string): string[] {
  return resolvePaths(target, host.cwds, host.ctx, { followLast: false })
    .refs.filter((ref) => !ref.pattern)
    .flatMap((ref) => [ref.path, posix.join(ref.path, name)]);
}

/** Links at or below `path`: the one there now on disk, and those the script made. Each with its target text. */
function linksAt(host: RuleHost, path: string): Array<[string, string]> {
  const found: Array<[string, string]> = [];
  const onDisk = host.ctx.real?.linkText(path);
  if (onDisk !== undefined) found.push([path, onDisk]);
  for (const [linkPath, link] of host.ctx.links ?? []) {
    if (!within(linkPath, path) || link.holdsLinks) continue;
    found.push([linkPath, link.text ?? link.target ?? RUNTIME]);
  }
  return found;
}

/** A link made again at `path` pointing to `text` (relative to its new folder): checked and remembered. */
function made(host: RuleHost, path: string, text: string): void {
  checkLink(host, {
    target: text === RUNTIME ? { ...literalValue(RUNTIME), dynamic: true } : literalValue(text),
    path: literalValue(path),
    symbolic: true,
  });
}
