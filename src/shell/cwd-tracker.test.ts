import { describe, expect, it } from 'vitest';
import { CwdTracker } from './cwd-tracker.js';
import { literalValue } from './shell-paths.js';

const ctx = { workspace: '/w', cwd: '/w', home: '/home/ann', protectedPaths: [] };
const cd = (tracker: CwdTracker, scope: string, target: string, followedBy?: string) => {
  const moved = tracker.move(scope, 'cd', [literalValue(target)], ctx, false);
  tracker.ran(scope, { moved, ...(followedBy ? { followedBy } : {}) });
};

describe('CwdTracker', () => {
  it('moves the rest of an && chain; past it the cd may have failed', () => {
    const tracker = new CwdTracker(['/w']);
    cd(tracker, '0', 'sub', '&&');
    expect(tracker.cwds('0')).toEqual(['/w/sub']);
    tracker.ran('0', { followedBy: ';' });
    expect(tracker.cwds('0')).toEqual(['/w', '/w/sub']);
  });

  it('trusts a cd guarded by || exit', () => {
    const tracker = new CwdTracker(['/w']);
    cd(tracker, '0', '/srv', '||');
    expect(tracker.cwds('0')).toEqual(['/w']);
    tracker.ran('0', { followedBy: ';', exits: true });
    expect(tracker.cwds('0')).toEqual(['/srv']);
  });

  it('keeps a subshell’s cd inside it, and starts a subshell where its parent is', () => {
    const tracker = new CwdTracker(['/w']);
    cd(tracker, '0', '/srv', '&&');
    expect(tracker.cwds('0.1')).toEqual(['/srv']);
    cd(tracker, '0.1', '/etc', ';');
    expect(tracker.cwds('0')).toEqual(['/srv']);
  });

  it('does not know where a cd to a run-time place or `cd -` goes', () => {
    const tracker = new CwdTracker(['/w']);
    const dynamic = { text: '\u0001', dynamic: true, ifs: false, process: false };
    expect(tracker.move('0', 'cd', [dynamic], ctx, false)).toEqual([undefined]);
    expect(tracker.move('0', 'cd', [literalValue('-')], ctx, false)).toEqual([undefined]);
    expect(tracker.move('0', 'cd', [], ctx, false)).toEqual(['/home/ann']);
    // With CDPATH set by the script, a plain name may lead anywhere; ./name may not.
    expect(tracker.move('0', 'cd', [literalValue('etc')], ctx, true)).toEqual([undefined]);
    expect(tracker.move('0', 'cd', [literalValue('./etc')], ctx, true)).toEqual(['/w/etc']);
  });
});
