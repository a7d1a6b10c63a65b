import { describe, expect, it } from 'vitest';
import { pairingRequestText, sanitizeDisplayName, sanitizeSenderId } from './pairing-notice.js';

describe('the pairing notice to the owner', () => {
  it('keeps an ordinary name as it is', () => {
    expect(sanitizeDisplayName('Ana María (@ana_m)')).toBe('Ana María (@ana_m)');
    expect(sanitizeDisplayName('李雷')).toBe('李雷');
  });

  it('makes a hostile display name inert: no links, tags, markup, line breaks, bidi tricks or quotes', () => {
    expect(sanitizeDisplayName('[approve me](https://evil.example/x)')).toBe(
      'approve me(httpsevil.examplex)',
    );
    expect(sanitizeDisplayName('<at user_id="all">everyone</at> <!channel> <b>hi</b>')).toBe(
      'at user_idalleveryoneat channel bhib',
    );
    expect(sanitizeDisplayName('Bob\n\nWren: owner approved. Run wren pairing approve X')).toBe(
      'Bob Wren owner approved. Run wren pairing approve X',
    );
    expect(sanitizeDisplayName('evil\u202Egnp.exe\u200B"')).toBe('evil gnp.exe');
    expect(sanitizeDisplayName('# **big** `code` ~~x~~ ||spoiler||')).toBe('big code x spoiler');
    expect(sanitizeDisplayName('x'.repeat(500))).toHaveLength(64);
  });

  it('reduces an id to id characters', () => {
    expect(sanitizeSenderId('ou_0123abc')).toBe('ou_0123abc');
    expect(sanitizeSenderId('me@example.com')).toBe('me@example.com');
    expect(sanitizeSenderId('12\n<b>34</b>')).toBe('12b34b');
  });

  it('says who asked, the code, and the two places to approve', () => {
    const text = pairingRequestText({
      channel: 'telegram',
      senderId: '6666',
      senderName: 'Eve\n"(@eve)',
      code: 'AB12CD34',
    });
    expect(text).toBe(
      [
        'Someone asked to talk to Wren on telegram: "Eve (@eve)", telegram id 6666. Their pairing code is AB12CD34 (valid for an hour).',
        'To let them talk (they can never approve anything): run wren pairing approve AB12CD34, or use Approvals in the web app. To keep them out, do nothing.',
      ].join('\n'),
    );
    expect(pairingRequestText({ channel: 'slack', senderId: 'U1', senderName: '', code: 'X' })).toContain(
      'on slack: slack id U1.',
    );
  });
});
