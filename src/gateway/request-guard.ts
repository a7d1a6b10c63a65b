import { networkInterfaces } from 'node:os';
import type { Context, MiddlewareHandler } from 'hono';
import { isLoopbackHost } from './gateway-token.js';

function problem(code: string, message: string) {
  return { error: { code, message } };
}

/** The host name of a `Host` header or an origin, lower-case, without port or IPv6 brackets. */
export function hostnameOf(value: string): string | undefined {
  const text = value.trim().toLowerCase();
  if (text === '') return undefined;
  try {
    const url = new URL(text.includes('://') ? text : `http://${text}`);
    if (url.username || url.password || url.pathname !== '/' || url.search || url.hash) return undefined;
    return url.hostname.replace(/^\[|\]$/g, '');
  } catch {
    return undefined;
  }
}

/**
 * The host names a browser may use to reach this gateway: the loopback names when it listens on loopback;
 * otherwise the bound address (every local interface address and the machine's name for 0.0.0.0/::) plus
 * `gateway.allowed_hosts`. A request naming any other host is a DNS-rebinding attempt or a misconfiguration.
 */
export function allowedHostnames(bind: string, extra: readonly string[], machineName?: string): Set<string> {
  const names = new Set<string>(['localhost', '127.0.0.1', '::1']);
  const bound = hostnameOf(bind);
  if (bound) {
    names.add(bound);
    if (!isLoopbackHost(bind) && (bound === '0.0.0.0' || bound === '::')) {
      for (const entries of Object.values(networkInterfaces()))
        for (const entry of entries ?? []) names.add(entry.address.toLowerCase());
      if (machineName) names.add(machineName.toLowerCase());
    }
  }
  for (const host of extra) {
    const name = hostnameOf(host);
    if (name) names.add(name);
  }
  return names;
}

/**
 * Refuses requests whose `Host` or `Origin` names a host not in `allowed` (403), even with a valid token: a
 * page on evil.example that re-resolves its name to 127.0.0.1 must not reach the API. Requests without an
 * `Origin` (the CLI, curl) only need a good `Host`; `Origin: null` (sandboxed frames, file://) is refused.
 */
export function hostGuard(allowed: () => ReadonlySet<string>): MiddlewareHandler {
  return async (c, next) => {
    const names = allowed();
    // The node server builds the URL from the Host header; a Request without one (tests) has its URL's.
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    const hostname = hostnameOf(host);
    if (!hostname || !names.has(hostname)) {
      return c.json(
        problem(
          'forbidden_host',
          `This gateway does not answer for the host "${host}". Use http://127.0.0.1, or add the name to gateway.allowed_hosts in config.yaml.`,
        ),
        403,
      );
    }
    const origin = c.req.header('origin');
    if (origin !== undefined) {
      const from = hostnameOf(origin);
      const scheme = /^https?:\/\//i.test(origin.trim());
      if (!scheme || !from || !names.has(from)) {
        return c.json(
          problem('forbidden_origin', `Requests from the origin "${origin}" are refused (cross-site).`),
          403,
        );
      }
    }
    await next();
  };
}

export interface AuthLimiterOptions {
  /** Failed attempts per address allowed within `windowMs`; the next ones are refused unchecked. */
  maxFailures?: number;
  windowMs?: number;
  now?: () => number;
}

/**
 * Counts failed token attempts per client address in a sliding window. Past the limit, an address gets 429
 * with Retry-After and its tokens are not even checked until the window has passed, so guessing gains
 * nothing; a success clears the address's record. Memory stays bounded (oldest addresses are forgotten).
 */
export class AuthLimiter {
  private readonly failures = new Map<string, number[]>();
  private readonly maxFailures: number;
  private readonly windowMs: number;
  private readonly now: () => number;

  constructor(options: AuthLimiterOptions = {}) {
    this.maxFailures = options.maxFailures ?? 10;
    this.windowMs = options.windowMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /** Seconds until `address` may try again, or 0 when it may try now. */
  retryAfter(address: string): number {
    const recent = this.recent(address);
    if (recent.length < this.maxFailures) return 0;
    return Math.max(1, Math.ceil((recent[0]! + this.windowMs - this.now()) / 1000));
  }

  fail(address: string): void {
    const recent = this.recent(address);
    recent.push(this.now());
    this.failures.delete(address);
    this.failures.set(address, recent.slice(-this.maxFailures));
    if (this.failures.size > 10_000) this.failures.delete(this.failures.keys().next().value!);
  }

  succeed(address: string): void {
    this.failures.delete(address);
  }

  private recent(address: string): number[] {
    const since = this.now() - this.windowMs;
    return (this.failures.get(address) ?? []).filter((at) => at > since);
  }
}

/** The client's address as the socket reports it ('local' when there is no socket, as in app.request tests). */
export function clientAddress(c: Context): string {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress ?? 'local';
}

/**
 * Bearer-token auth with failed attempts rate-limited per address (see AuthLimiter). Messages say what to
 * do: no header, a malformed one, a wrong token, or too many wrong tokens.
 */
export function tokenAuth(
  verify: (token: string) => boolean,
  limiter: AuthLimiter,
  /**
   * Tokens accepted even while their address is limited: the run's local token (192 random bits, so no
   * guess can reach it), which keeps a local process that floods wrong tokens from locking the owner's own
   * commands out.
   */
  exempt: (token: string) => boolean = () => false,
  /** Whether the request carries a signed-in browser's session cookie and its key (see BrowserSessions). */
  browserSession: (c: Context) => boolean = () => false,
): MiddlewareHandler {
  return async (c, next) => {
    const address = clientAddress(c);
    const presented = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(c.req.header('authorization') ?? '')?.[1];
    if (presented !== undefined && exempt(presented)) {
      await next();
      return;
    }
    if (c.req.header('authorization') === undefined && browserSession(c)) {
      // The session's key proves the page is this origin's; the origin check below is for changes.
      const refused = refuseCrossSite(c);
      if (refused) return refused;
      await next();
      return;
    }
    const wait = limiter.retryAfter(address);
    if (wait > 0) {
      c.header('Retry-After', String(wait));
      return c.json(
        problem(
          'too_many_attempts',
          `Too many wrong gateway tokens from ${address}; try again in ${wait} s.`,
        ),
        429,
      );
    }
    const header = c.req.header('authorization');
    const refuse = (message: string) => {
      c.header('WWW-Authenticate', 'Bearer realm="wren"');
      return c.json(problem('unauthorized', message), 401);
    };
    if (header === undefined) return refuse('Send the gateway token as "Authorization: Bearer <token>".');
    const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
    if (!match) {
      limiter.fail(address);
      return c.json(problem('bad_request', 'Use "Authorization: Bearer <token>".'), 400);
    }
    if (!verify(match[1]!)) {
      limiter.fail(address);
      return refuse('The gateway token is wrong. Run `wren token --rotate` to make a new one.');
    }
    limiter.succeed(address);
    await next();
  };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A cookie-authenticated request that changes something must show it comes from the app's own pages: an
 * `Origin` (which hostGuard has already checked against the allowed hosts) or `Sec-Fetch-Site: same-origin`.
 * SameSite=Strict keeps other sites' requests cookie-less already; this holds even for a browser that
 * ignores SameSite, or a form on a sibling port of the same host.
 */
function refuseCrossSite(c: Context): Response | undefined {
  if (SAFE_METHODS.has(c.req.method)) return undefined;
  const site = c.req.header('sec-fetch-site');
  if (c.req.header('origin') === undefined && site !== 'same-origin') {
    return c.json(
      problem('forbidden_origin', 'A browser request that changes something must carry its Origin.'),
      403,
    );
  }
  if (!sameOrigin(c)) {
    return c.json(
      problem(
        'forbidden_origin',
        `Requests from the origin "${c.req.header('origin') ?? site}" are refused (cross-site).`,
      ),
      403,
    );
  }
  return undefined;
}

/**
 * Whether a request may come from this gateway's own pages: `Sec-Fetch-Site`, when sent, is `same-origin` (or
 * `none`, typed by the user), and `Origin`, when sent, is this very origin — ports count (hostGuard compares
 * host names only), so a page served by another program on this machine is same-site but not this app.
 * A request with neither header (curl, the CLI) passes: it is not a browser acting for a page.
 */
export function sameOrigin(c: Context): boolean {
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const origin = c.req.header('origin');
  if (origin === undefined) return true;
  const host = (c.req.header('host') ?? new URL(c.req.url).host).toLowerCase();
  try {
    return new URL(origin).host.toLowerCase() === host;
  } catch {
    return false;
  }
}
