import { describe, expect, it } from 'vitest';
import { judgeSender } from './authentication-results.js';

const header = (line: string) => ({ key: 'authentication-results', line: `Authentication-Results: ${line}` });

describe('judgeSender', () => {
  it('passes DMARC, and DKIM or SPF aligned with the From domain', () => {
    expect(
      judgeSender([header('mx.google.com; dmarc=pass (p=NONE) header.from=example.com')], 'me@example.com')
        .pass,
    ).toBe(true);
    expect(
      judgeSender([header('mx.example.net; dkim=pass header.d=mail.example.com')], 'me@example.com').pass,
    ).toBe(true);
    expect(
      judgeSender([header('mx.example.net; spf=pass smtp.mailfrom=bounce@example.com')], 'me@example.com')
        .pass,
    ).toBe(true);
  });

  it('refuses a forged From: no header, failures, or a pass for another domain', () => {
    expect(judgeSender([], 'boss@example.com')).toMatchObject({
      pass: false,
      reason: 'no Authentication-Results header',
    });
    expect(
      judgeSender(
        [header('mx.google.com; dmarc=fail header.from=example.com; spf=softfail')],
        'boss@example.com',
      ).pass,
    ).toBe(false);
    expect(
      judgeSender(
        [header('mx.google.com; dkim=pass header.d=attacker.net; spf=pass smtp.mailfrom=x@attacker.net')],
        'boss@example.com',
      ).pass,
    ).toBe(false);
    expect(
      judgeSender([header('mx.google.com; dmarc=pass header.from=attacker.net')], 'boss@example.com').pass,
    ).toBe(false);
  });

  it('trusts only the topmost header: a passing one planted further down does not count', () => {
    const headers = [
      header('mx.google.com; dmarc=fail header.from=example.com'),
      header('evil; dmarc=pass header.from=example.com'),
    ];
    expect(judgeSender(headers, 'boss@example.com').pass).toBe(false);
  });

  it('with trusted server ids, ignores a header from any other server', () => {
    const line = [header('mx.attacker.net; dmarc=pass header.from=example.com')];
    expect(judgeSender(line, 'me@example.com', ['mx.google.com'])).toMatchObject({ pass: false });
    expect(
      judgeSender([header('mx.google.com; dmarc=pass header.from=example.com')], 'me@example.com', [
        'mx.google.com',
      ]).pass,
    ).toBe(true);
  });
});
