import { describe, expect, it } from 'vitest';
import { hasOption, optionValues, parseOptions } from './parse-options.js';
import { literalValue, RUNTIME } from './shell-paths.js';

const parse = (line: string, takesValue: string[] = []) =>
  parseOptions(line.split(' ').map(literalValue), takesValue);
const texts = (values: Array<{ text: string }>) => values.map((value) => value.text);

describe('parseOptions', () => {
  it('separates options from operands anywhere, like GNU getopt', () => {
    const parsed = parse('x /srv/y -v -rf', ['t']);
    expect(texts(parsed.operands)).toEqual(['x', '/srv/y']);
    expect(hasOption(parsed, 'r') && hasOption(parsed, 'f') && hasOption(parsed, 'v')).toBe(true);
  });

  it('gives values to the options that take one, in every spelling', () => {
    for (const line of [
      '-t /dir x',
      '-t/dir x',
      '--target-directory=/dir x',
      '--target-directory /dir x',
      '-vt /dir x',
    ]) {
      const parsed = parse(line, ['t', 'target-directory']);
      expect(texts(optionValues(parsed, 't', 'target-directory')), line).toEqual(['/dir']);
      expect(texts(parsed.operands), line).toEqual(['x']);
    }
  });

  it('treats everything after -- and run-time words as operands', () => {
    expect(texts(parse('-r -- -f x').operands)).toEqual(['-f', 'x']);
    const dynamic = parseOptions([{ text: `${RUNTIME}-x`, dynamic: true, ifs: false, process: false }]);
    expect(dynamic.operands).toHaveLength(1);
  });
});
