import { type Cwd, resolvePaths } from './resolve-paths.js';
import type { AnalysisContext, WordValue } from './shell-paths.js';

/** More possible working folders than this and the working folder counts as unknown. */
const MAX_CWDS = 8;

interface ScopeState {
  /** Where a command that starts a new and-or list runs. */
  settled: Cwd[];
  /** Inside an `&&` chain: where the rest of the chain runs. */
  chain?: Cwd[];
  /** After `cd … ||`: the next command runs only if the `cd` failed. */
  guard?: { success: Cwd[]; failure: Cwd[] };
  /** `pushd` history, most recent last. */
  stack: Cwd[][];
}

function union(first: readonly Cwd[], second: readonly Cwd[]): Cwd[] {
  const all = [...new Set([...first, ...second])];
  return all.length > MAX_CWDS ? [undefined] : all;
}

/**
 * The folders `value` names as a working folder from each of `from` (`cd x`, `env -C x`): undefined where
 * it is only known at run time (run-time text, a glob, another process's `/proc/<pid>/cwd`, a descriptor).
 */
export function folderOf(value: WordValue, from: readonly Cwd[], ctx: AnalysisContext): Cwd[] {
  if (value.dynamic || value.glob) return [undefined];
  const { refs, unknown, unknownCwd } = resolvePaths(value, from, ctx);
  const folders: Cwd[] = refs.slice(0, MAX_CWDS).map((ref) => ref.path);
  if (unknown || unknownCwd || folders.length === 0) folders.push(undefined);
  return [...new Set(folders)];
}

/** What one command did to the shell's working folder. */
export interface Step {
  /** The list operator after it (`&&`, `||`, `;` …). */
  followedBy?: string;
  /** Where it leaves the shell when it succeeds (`cd`), when it changes folder. */
  moved?: Cwd[];
  /** It ends the script or function (`exit`, `return`), so nothing after it runs when it does. */
  exits?: boolean;
}

/**
 * Follows `cd`, `pushd` and `popd` through a script, per subshell scope (a scope starts where its parent
 * was). A `cd` may fail, so past the end of its `&&` chain a command may run in either folder, unless the
 * failure leaves the script (`cd x || exit`). Folders are sets of possibilities; undefined is a folder only
 * known at run time.
 */
export class CwdTracker {
  private readonly scopes = new Map<string, ScopeState>();

  constructor(private readonly initial: readonly Cwd[]) {}

  /** The folders a command in `scope` may run in. */
  cwds(scope: string): Cwd[] {
    const state = this.state(scope);
    return state.guard?.failure ?? state.chain ?? state.settled;
  }

  /** Records a command that ran in `scope` (in script order). */
  ran(scope: string, step: Step): void {
    const state = this.state(scope);
    const before = this.cwds(scope);
    const after = step.moved ?? before;
    if (state.guard) {
      state.settled = step.exits ? state.guard.success : union(state.guard.success, after);
      state.guard = undefined;
      state.chain = undefined;
      return;
    }
    const op = step.followedBy;
    if (op === '|' || op === '|&') return;
    if (op === '&&') {
      state.chain = after;
      return;
    }
    if (op === '||' && step.moved) {
      state.guard = { success: step.moved, failure: state.chain ? union(state.settled, before) : before };
      state.chain = undefined;
      return;
    }
    state.settled = union(state.settled, after);
    state.chain = undefined;
  }

  /**
   * Where `cd`, `pushd` or `popd` with `args` takes a command in `scope` (`pushd`/`popd` also keep their
   * history). `cdpath`: the script sets CDPATH, so a plain relative name may lead anywhere.
   */
  move(scope: string, name: string, args: WordValue[], ctx: AnalysisContext, cdpath: boolean): Cwd[] {
    const state = this.state(scope);
    const from = this.cwds(scope);
    if (name === 'popd') return state.stack.pop() ?? [undefined];
    const operands = args.filter((arg) => !/^-[LPe@]+$/.test(arg.text) && arg.text !== '--');
    const target = operands[0];
    if (name === 'pushd') {
      state.stack.push(from);
      if (!target || /^[+-]\d*$/.test(target.text)) return [undefined];
    }
    if (!target) return [ctx.home];
    if (target.text === '-') return [undefined];
    if (cdpath && !/^([/~]|\.\.?(\/|$))/.test(target.text)) return [undefined];
    return folderOf(target, from, ctx);
  }

  private state(scope: string): ScopeState {
    let state = this.scopes.get(scope);
    if (!state) {
      const dot = scope.lastIndexOf('.');
      state = { settled: dot === -1 ? [...this.initial] : this.cwds(scope.slice(0, dot)), stack: [] };
      this.scopes.set(scope, state);
    }
    return state;
  }
}
