import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { Redactor, resolveSecretsInPlace, secretReferences } from './redactor.js';

const SECRET = 'sk-live-abcdef123456';

describe('Redactor', () => {
  it('redacts raw, URL-encoded and base64 forms, deeply, and leaves short values alone', () => {
    const redactor = new Redactor([SECRET, 'abc', 'p@ss word!']);
    const base64 = Buffer.from(SECRET).toString('base64');
    expect(redactor.text(`a ${SECRET} b ${base64} c ${encodeURIComponent('p@ss word!')} abc`)).toBe(
      'a [redacted] b [redacted] c [redacted] abc',
    );
    const cyclic: Record<string, unknown> = { list: [SECRET, 1, null], [SECRET]: true };
    cyclic['self'] = cyclic;
    expect(redactor.value(cyclic)).toEqual({
      list: ['[redacted]', 1, null],
      '[redacted]': true,
      self: '[cycle]',
    });
    redactor.update([]);
    expect(redactor.text(SECRET)).toBe(SECRET);
  });

  it('plugs into pino so log lines never carry a secret', () => {
    const redactor = new Redactor([SECRET]);
    const lines: string[] = [];
    const logger = pino(
      { hooks: { logMethod: redactor.logHook() } },
      { write: (line: string) => lines.push(line) },
    );
    logger.info(
      { url: `https://x.test/?key=${SECRET}`, nested: { error: new Error(`bad ${SECRET}`) } },
      `msg ${SECRET}`,
    );
    expect(lines.join('')).not.toContain(SECRET);
    expect(lines.join('')).toContain('msg [redacted]');
  });
});

describe('secret references', () => {
  it('finds and resolves {{secret:NAME}} in nested arguments, in place', () => {
    const args = { headers: [{ auth: 'Bearer {{ secret:TOKEN }}' }], note: 'plain', n: 3 };
    expect(secretReferences(args)).toEqual(['TOKEN']);
    resolveSecretsInPlace(args, { TOKEN: SECRET });
    expect(args).toEqual({ headers: [{ auth: `Bearer ${SECRET}` }], note: 'plain', n: 3 });
  });

  it('names an unknown secret without revealing any value', () => {
    expect(() => resolveSecretsInPlace({ a: '{{secret:NOPE}}' }, { TOKEN: SECRET })).toThrow(
      'no secret named NOPE is configured',
    );
  });
});

describe('Redactor.add', () => {
  it('keeps values added at run time redacted across updates', () => {
    const redactor = new Redactor(['config-secret-1']);
    redactor.add(['wren_local_abcdef']);
    redactor.update(['config-secret-2']);
    expect(redactor.text('a wren_local_abcdef b config-secret-2 c config-secret-1')).toBe(
      'a [redacted] b [redacted] c config-secret-1',
    );
  });
});

describe('Redactor.remove', () => {
  it('forgets values added at run time, and only those', () => {
    const redactor = new Redactor(['config-secret-1']);
    redactor.add(['api-token-old', 'api-token-new']);
    redactor.remove(['api-token-old', 'config-secret-1']);
    expect(redactor.text('api-token-old api-token-new config-secret-1')).toBe(
      'api-token-old [redacted] [redacted]',
    );
    redactor.update(['config-secret-2']);
    expect(redactor.text('api-token-old api-token-new')).toBe('api-token-old [redacted]');
  });
});
