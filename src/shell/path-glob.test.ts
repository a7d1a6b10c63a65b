import { describe, expect, it } from 'vitest';
import { broadGlobBase, climbingSegment, overlap, segmentMatches } from './path-glob.js';
import { RUNTIME } from './shell-paths.js';

describe('path globs', () => {
  it('matches segments the way bash does without dotglob', () => {
    expect(segmentMatches('id_*', 'id_rsa')).toBe(true);
    expect(segmentMatches('*', '.ssh')).toBe(false);
    expect(segmentMatches('.ss?', '.ssh')).toBe(true);
    expect(segmentMatches(`${RUNTIME}`, '.env')).toBe(true);
    expect(segmentMatches('environ', 'environ')).toBe(true);
  });

  it('relates a pattern to a folder: the folder itself, inside it, or above it', () => {
    expect(overlap('/home/ann/.ss?/id_*', '/home/ann/.ssh')).toEqual({
      self: false,
      inside: true,
      above: false,
    });
    expect(overlap('/home/*', '/home/ann/.ssh')).toEqual({ self: false, inside: false, above: true });
    expect(overlap('/e*', '/etc')).toEqual({ self: true, inside: false, above: false });
    expect(overlap('/var/*', '/etc')).toBeUndefined();
    // Run-time text may hold slashes: anything at or below its position.
    expect(overlap(`/home/${RUNTIME}`, '/home/ann/.ssh')?.inside).toBe(true);
    expect(overlap(`/srv/${RUNTIME}`, '/home/ann')).toBeUndefined();
  });

  it('finds the folder whose whole contents a pattern names', () => {
    expect(broadGlobBase('/home/ann/*')).toBe('/home/ann');
    expect(broadGlobBase('/?*')).toBe('/');
    expect(broadGlobBase('/[a-z]*')).toBe('/');
    expect(broadGlobBase('/srv/*/*')).toBe('/srv');
    expect(broadGlobBase('/w/notes/*.bak')).toBe('/w/notes/*.bak');
  });

  it('knows which segments can climb to the parent folder', () => {
    expect(climbingSegment('.*')).toBe(true);
    expect(climbingSegment('*')).toBe(false);
    expect(climbingSegment('.git')).toBe(false);
  });
});
