/** What the receiving server said about one mail's sender (the topmost Authentication-Results header). */
export interface SenderVerdict {
  pass: boolean;
  /** Why, in words for the log: which method passed, or what was missing. */
  reason: string;
}

/** The registrable part of a domain, as far as alignment needs it: the last two labels (three for co.uk-style). */
function orgDomain(domain: string): string {
  const labels = domain.toLowerCase().replace(/\.$/, '').split('.');
  const second = labels.at(-2) ?? '';
  const take = labels.length > 2 && second.length <= 3 && (labels.at(-1)?.length ?? 0) === 2 ? 3 : 2;
  return labels.slice(-take).join('.');
}

function aligned(domain: string | undefined, fromDomain: string): boolean {
  return domain !== undefined && orgDomain(domain) === orgDomain(fromDomain);
}

/**
 * Judges a mail's From address by the topmost `Authentication-Results` header — the one the owner's own
 * mail server added on receipt (lower ones travelled with the mail and anyone could have written them).
 * Passes on `dmarc=pass`, or on `dkim=pass` / `spf=pass` whose domain aligns with the From domain. With
 * `trusted` ids, the header must come from one of those servers. No header, or a failing one: no pass.
 */
export function judgeSender(
  headers: ReadonlyArray<{ key: string; line: string }>,
  fromAddress: string,
  trusted: readonly string[] = [],
): SenderVerdict {
  const header = headers.find((item) => item.key.toLowerCase() === 'authentication-results');
  if (!header) return { pass: false, reason: 'no Authentication-Results header' };
  const value = header.line.replace(/^[^:]*:\s*/, '').replace(/\r?\n[ \t]+/g, ' ');
  const parts = value.split(';').map((part) => part.trim());
  const authserv = (parts[0] ?? '').split(/\s+/)[0]!.toLowerCase();
  if (trusted.length > 0 && !trusted.map((id) => id.toLowerCase()).includes(authserv))
    return { pass: false, reason: `Authentication-Results from ${authserv}, not a trusted server` };
  const fromDomain = fromAddress.split('@')[1]?.toLowerCase() ?? '';
  for (const part of parts.slice(1)) {
    const method = /^(dmarc|dkim|spf)\s*=\s*(\w+)/i.exec(part);
    if (!method || method[2]!.toLowerCase() !== 'pass') continue;
    const kind = method[1]!.toLowerCase();
    if (kind === 'dmarc') {
      const policyDomain = /header\.from\s*=\s*([^\s;]+)/i.exec(part)?.[1];
      if (!policyDomain || aligned(policyDomain, fromDomain)) return { pass: true, reason: 'dmarc=pass' };
      continue;
    }
    const domain =
      kind === 'dkim'
        ? /header\.(?:d|i)\s*=\s*@?([^\s;]+)/i.exec(part)?.[1]
        : /smtp\.(?:mailfrom|helo)\s*=\s*(?:[^@\s;]*@)?([^\s;]+)/i.exec(part)?.[1];
    if (aligned(domain, fromDomain)) return { pass: true, reason: `${kind}=pass (${domain})` };
  }
  return { pass: false, reason: `no aligned pass in: ${value.slice(0, 200)}` };
}
