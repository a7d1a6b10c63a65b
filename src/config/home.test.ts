import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkHomePermissions, ensureHome, makeHomePrivate, resolveHome } from './home.js';
import { loadConfig } from './load-config.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'wren-home-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const mode = (path: string) => statSync(path).mode & 0o777;

describe('resolveHome', () => {
  it('uses WREN_HOME, expanding ~, or ~/.wren', () => {
    expect(resolveHome({})).toBe(join(homedir(), '.wren'));
    expect(resolveHome({ WREN_HOME: '/srv/wren' })).toBe('/srv/wren');
    expect(resolveHome({ WREN_HOME: '~/w' })).toBe(join(homedir(), 'w'));
  });
});

describe('ensureHome', () => {
  it('creates the folders with 0700 and a valid commented config.yaml with 0600', () => {
    const home = join(root, 'home');
    const previous = process.umask(0o022);
    try {
      expect(ensureHome(home)).toEqual([
        home,
        join(home, 'workspace'),
        join(home, 'logs'),
        join(home, 'config.yaml'),
      ]);
    } finally {
      process.umask(previous);
    }
    expect(mode(home)).toBe(0o700);
    expect(mode(join(home, 'workspace'))).toBe(0o700);
    expect(mode(join(home, 'logs'))).toBe(0o700);
    expect(mode(join(home, 'config.yaml'))).toBe(0o600);
    const text = readFileSync(join(home, 'config.yaml'), 'utf8');
    expect(text).toContain('provider:');
    expect(loadConfig(home, {}).models).toEqual([]);
    expect(checkHomePermissions(home)).toEqual([]);
  });

  it('changes nothing that exists', () => {
    const home = join(root, 'home');
    mkdirSync(home, { mode: 0o755 });
    chmodSync(home, 0o755);
    writeFileSync(join(home, 'config.yaml'), 'log:\n  level: debug\n', { mode: 0o644 });
    chmodSync(join(home, 'config.yaml'), 0o644);
    expect(ensureHome(home)).toEqual([join(home, 'workspace'), join(home, 'logs')]);
    expect(mode(home)).toBe(0o755);
    expect(mode(join(home, 'config.yaml'))).toBe(0o644);
    expect(readFileSync(join(home, 'config.yaml'), 'utf8')).toBe('log:\n  level: debug\n');
    expect(ensureHome(home)).toEqual([]);
  });
});

describe('checkHomePermissions', () => {
  it('reports a 0755 home and world-readable secrets, each with a chmod fix', () => {
    const home = join(root, 'my home');
    ensureHome(home);
    chmodSync(home, 0o755);
    writeFileSync(join(home, '.env'), 'KEY=x\n');
    chmodSync(join(home, '.env'), 0o644);
    writeFileSync(join(home, 'wren.db'), '');
    chmodSync(join(home, 'wren.db'), 0o660);
    expect(checkHomePermissions(home)).toEqual([
      {
        path: home,
        message: `${home} is readable by group and others (mode 0755)`,
        fix: `chmod 700 '${home}'`,
      },
      {
        path: join(home, '.env'),
        message: `${join(home, '.env')} is readable by group and others (mode 0644)`,
        fix: `chmod 600 '${join(home, '.env')}'`,
      },
      {
        path: join(home, 'wren.db'),
        message: `${join(home, 'wren.db')} is readable and writable by group (mode 0660)`,
        fix: `chmod 600 '${join(home, 'wren.db')}'`,
      },
    ]);
  });
});

describe('makeHomePrivate', () => {
  it('makes a loose home and its secret files private, leaves links and other files alone', () => {
    const home = join(root, 'loose');
    ensureHome(home);
    chmodSync(home, 0o755);
    chmodSync(join(home, 'workspace'), 0o775);
    writeFileSync(join(home, '.env'), 'KEY=x\n', { mode: 0o644 });
    chmodSync(join(home, '.env'), 0o644);
    writeFileSync(join(home, 'notes.txt'), 'public\n');
    chmodSync(join(home, 'notes.txt'), 0o644);
    const outside = join(root, 'outside.txt');
    writeFileSync(outside, 'x');
    chmodSync(outside, 0o644);
    symlinkSync(outside, join(home, 'mcp.json'));
    expect(makeHomePrivate(home).sort()).toEqual([home, join(home, '.env'), join(home, 'workspace')].sort());
    expect(mode(home)).toBe(0o700);
    expect(mode(join(home, 'workspace'))).toBe(0o700);
    expect(mode(join(home, '.env'))).toBe(0o600);
    expect(mode(join(home, 'notes.txt'))).toBe(0o644);
    expect(mode(outside)).toBe(0o644);
    // Only the linked file stays loose: doctor reports it (its target is not the home's to change).
    expect(checkHomePermissions(home).map((finding) => finding.path)).toEqual([join(home, 'mcp.json')]);
    expect(makeHomePrivate(home)).toEqual([]);
  });
});
