import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { posix } from 'node:path';
import { type ExistingLinks, RUNTIME, type ShellContext, within } from '../../shell/index.js';

/** File system lookups per analysis; past this, paths count as they are spelled (bounds the I/O). */
const MAX_LOOKUPS = 256;
/** Paths the kernel makes up (their links lead into the process that reads them, not the command). */
const VIRTUAL = /^\/(proc|dev|sys)(\/|$)/;

/**
 * Where paths lead through links that already exist on disk, at the time of the analysis: the longest
 * existing prefix of a path is resolved with `realpath` (so `..` after a link climbs from where it points),
 * and the result is shown in the context's own terms (a workspace reached through a link of the home
 * folder is still the workspace). Lookups are cached per analysis and bounded.
 */
export class RealPaths implements ExistingLinks {
  private readonly cache = new Map<string, string | null>();
  private readonly roots: Array<{ real: string; shown: string }>;
  private lookups = 0;

  constructor(ctx: ShellContext) {
    const folders = [ctx.workspace, ctx.home, ...ctx.protectedPaths, '/tmp'];
    this.roots = folders
      .map((shown) => ({ real: this.real(shown) ?? shown, shown }))
      .sort((a, b) => b.real.length - a.real.length);
  }

  /**
   * The path `raw` (absolute, `..` not yet resolved) leads to, when links make it differ from `spelled` (its
   * lexical form). `followLast`: a link at the last segment counts too (not for a delete, which removes
   * the link itself).
   */
  extraPath(raw: string, spelled: string, followLast: boolean): string | undefined {
    if (VIRTUAL.test(spelled) || raw.includes(RUNTIME)) return undefined;
    const segments = raw.split('/');
    const wildcard = segments.findIndex((segment) => /[*?[]|[@!+]\(/.test(segment));
    const fixed = wildcard === -1 ? raw : segments.slice(0, wildcard).join('/') || '/';
    const pattern = wildcard === -1 ? '' : segments.slice(wildcard).join('/');
    const base = followLast || pattern !== '' ? fixed : posix.dirname(fixed);
    const resolved = this.existing(base);
    if (resolved === undefined) return undefined;
    const tail = pattern !== '' ? pattern : followLast ? '' : posix.basename(fixed);
    const path = this.shown(posix.normalize(tail ? `${resolved}/${tail}` : resolved));
    return path === spelled ? undefined : path;
  }

  /** The text of the link at `path`, when one exists there now. */
  linkText(path: string): string | undefined {
    if (VIRTUAL.test(path) || path.includes(RUNTIME) || !this.spend()) return undefined;
    try {
      return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
    } catch {
      return undefined;
    }
  }

  /** `realpath` of the longest prefix of `path` that exists, with the rest appended. */
  private existing(path: string): string | undefined {
    const rest: string[] = [];
    for (let prefix = path; ; prefix = posix.dirname(prefix)) {
      const real = this.real(prefix);
      if (real !== undefined) return rest.length > 0 ? posix.join(real, ...rest.reverse()) : real;
      if (prefix === '/' || prefix === '.') return undefined;
      rest.push(posix.basename(prefix));
    }
  }

  private real(path: string): string | undefined {
    const cached = this.cache.get(path);
    if (cached !== undefined) return cached ?? undefined;
    if (!this.spend()) return path;
    let real: string | null;
    try {
      real = realpathSync.native(path);
    } catch {
      real = null;
    }
    this.cache.set(path, real);
    return real ?? undefined;
  }

  private spend(): boolean {
    return ++this.lookups <= MAX_LOOKUPS;
  }

  /** A resolved path in the context's terms: under the workspace, the home folder … as they are spelled. */
  private shown(path: string): string {
    const root = this.roots.find(({ real }) => within(path, real));
    return root ? root.shown + path.slice(root.real.length) : path;
  }
}
