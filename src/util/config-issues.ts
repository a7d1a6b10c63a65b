import type * as z from 'zod';
import { closestMatch } from './closest-match.js';
import { ConfigError, formatKeyPath } from './config-error.js';

/** One problem found in a config file, before it becomes part of a {@link ConfigError}. */
export interface ConfigIssue {
  path: Array<string | number>;
  message: string;
  envVar?: string;
}

const MAX_LINES = 8;

function valueAt(root: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let node = root;
  for (const part of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[part];
  }
  return node;
}

function describeType(value: unknown): string {
  if (value === null) return 'nothing (null)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return Number.isInteger(value) ? 'a whole number' : 'a number';
  return `a ${typeof value}`;
}

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping',
  record: 'a mapping',
};

function invalidType(issue: z.core.$ZodIssueInvalidType, value: unknown): string {
  if (value === undefined) return 'missing; this key is required';
  const expected = EXPECTED[issue.expected] ?? issue.expected;
  if (issue.expected === 'int' && typeof value === 'number') return `must be a whole number, got ${value}`;
  const hint = issue.expected === 'string' && (typeof value === 'number' || typeof value === 'boolean');
  return `expected ${expected}, got ${describeType(value)}${hint ? ` (quote it: "${String(value)}")` : ''}`;
}

function sizeMessage(issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig): string {
  const small = issue.code === 'too_small';
  const bound = Number(small ? issue.minimum : issue.maximum);
  if (issue.origin === 'string' && small && bound === 1) return 'must not be empty';
  if (issue.origin === 'array')
    return `must list ${small ? 'at least' : 'at most'} ${bound} item${bound === 1 ? '' : 's'}`;
  if (issue.inclusive === false) return `must be ${small ? 'greater' : 'less'} than ${bound}`;
  return `must be ${small ? 'at least' : 'at most'} ${bound}`;
}

/** The keys an object at `path` may have, for "did you mean" hints (undefined: no hint). */
export type KnownKeys = (path: ReadonlyArray<PropertyKey>) => string[] | undefined;

function unknownKeyIssues(issue: z.core.$ZodIssueUnrecognizedKeys, knownKeys?: KnownKeys): ConfigIssue[] {
  const known = knownKeys?.(issue.path) ?? [];
  return issue.keys.map((key) => {
    const guess = closestMatch(key, known);
    const hint = guess
      ? ` (did you mean ${guess}?)`
      : known.length
        ? `; allowed keys: ${known.join(', ')}`
        : '';
    return { path: [...(issue.path as Array<string | number>), key], message: `unknown key${hint}` };
  });
}

/**
 * Translates zod's issues into plain sentences, unknown keys first (a typo usually explains the rest); an
 * unknown key gets a "did you mean" hint from `knownKeys` (the schema's keys at that path).
 */
export function issuesFromZod(error: z.ZodError, input: unknown, knownKeys?: KnownKeys): ConfigIssue[] {
  const unknown: ConfigIssue[] = [];
  const others: ConfigIssue[] = [];
  for (const issue of error.issues) {
    const path = issue.path as Array<string | number>;
    const value = valueAt(input, path);
    switch (issue.code) {
      case 'unrecognized_keys':
        unknown.push(...unknownKeyIssues(issue, knownKeys));
        break;
      case 'invalid_type':
        others.push({ path, message: invalidType(issue, value) });
        break;
      case 'too_small':
      case 'too_big':
        others.push({ path, message: sizeMessage(issue) });
        break;
      case 'invalid_value': {
        const allowed = issue.values.map(String);
        const guess = typeof value === 'string' ? closestMatch(value, allowed) : undefined;
        const got = typeof value === 'string' ? `"${value}"` : describeType(value);
        others.push({
          path,
          message: `must be one of ${allowed.join(', ')}; got ${got}${guess ? ` (did you mean ${guess}?)` : ''}`,
        });
        break;
      }
      default:
        others.push({ path, message: issue.message });
    }
  }
  return [...unknown, ...others];
}

/**
 * Folds issues into one ConfigError: one line per issue (`file: key.path: what is wrong`), at most a few.
 * The first issue's key path and variable become the error's `keyPath` / `envVar`.
 */
export function configErrorFrom(file: string, issues: readonly ConfigIssue[]): ConfigError {
  const lines = issues
    .slice(0, MAX_LINES)
    .map((issue) => `${file}: ${formatKeyPath(issue.path)}: ${issue.message}`);
  if (issues.length > MAX_LINES) lines.push(`${file}: … and ${issues.length - MAX_LINES} more problems`);
  const first = issues[0];
  return new ConfigError(lines.join('\n'), {
    file,
    ...(first ? { keyPath: formatKeyPath(first.path) } : {}),
    ...(first?.envVar ? { envVar: first.envVar } : {}),
  });
}
