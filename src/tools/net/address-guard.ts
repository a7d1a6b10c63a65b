import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { blockedReason, parseIp } from '../../util/ip-address.js';
import type { AllowList } from './allow-list.js';

/** One resolved address. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to its addresses (injected in tests; the default is the system resolver). */
export type Resolve = (host: string, signal?: AbortSignal) => Promise<ResolvedAddress[]>;

/** The system resolver (getaddrinfo), all addresses in the order the system gives them. */
export const systemResolve: Resolve = async (host) => {
  const answers = await dnsLookup(host, { all: true, verbatim: true });
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

/** `promise`, or a rejection as soon as `signal` aborts (the system resolver itself cannot be cancelled). */
function untilAborted<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** A refusal to connect to a destination; its message is meant for the model. */
export class AddressRefusedError extends Error {
  override name = 'AddressRefusedError';
}

/**
 * Decides whether a destination may be reached. Public addresses always may; private ones (see
 * {@link blockedReason}) only when the allow list admits the host, host:port or address.
 */
export class AddressGuard {
  constructor(private readonly allow: AllowList) {}

  /** The refusal message for `address` reached as `host:port`, or undefined when it is allowed. */
  refusal(host: string, port: number, address: string): string | undefined {
    const reason = blockedReason(address);
    if (!reason || this.allow.admits({ host, port, address })) return undefined;
    const shown = host === address || `[${address}]` === host ? address : `${host} (${address})`;
    const article = /^([aeio]|un[^i]|IPv4)/i.test(reason) ? 'an' : 'a';
    return `${shown} is ${article} ${reason} address; web_fetch only reaches public addresses unless the owner adds it to web.fetch.allow in config.yaml.`;
  }

  /**
   * Resolves `host` and checks every answer; any private answer refuses the whole host (a name that mixes
   * public and private answers is a rebinding attempt).
   * @throws AddressRefusedError when an answer is refused or the name does not resolve.
   */
  async resolveChecked(
    resolve: Resolve,
    host: string,
    port: number,
    signal?: AbortSignal,
  ): Promise<ResolvedAddress[]> {
    const literal = parseIp(host);
    if (literal) {
      const bare = host.replace(/^\[|\]$/g, '');
      const refused = this.refusal(host, port, bare);
      if (refused) throw new AddressRefusedError(refused);
      return [{ address: bare, family: literal.length === 4 ? 4 : 6 }];
    }
    let answers: ResolvedAddress[];
    try {
      answers = await untilAborted(resolve(host, signal), signal);
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new AddressRefusedError(`${host} could not be resolved (DNS lookup failed); check the address.`);
    }
    if (answers.length === 0) throw new AddressRefusedError(`${host} has no addresses in DNS.`);
    for (const { address } of answers) {
      const refused = this.refusal(host, port, address);
      if (refused) throw new AddressRefusedError(refused);
    }
    return answers;
  }

  /**
   * A `lookup` for `net.connect` that resolves, checks and hands the socket exactly the addresses it checked,
   * so nothing can change between the check and the connect (DNS pinning). Used for one host and port.
   */
  connectLookup(resolve: Resolve, port: number): LookupFunction {
    return (hostname, options, callback) => {
      this.resolveChecked(resolve, hostname, port).then(
        (answers) => {
          const family = options.family === 4 || options.family === 6 ? options.family : undefined;
          const usable = family ? answers.filter((answer) => answer.family === family) : answers;
          const first = usable[0];
          if (!first) {
            callback(new AddressRefusedError(`${hostname} has no IPv${family} address.`), '', 0);
          } else if (options.all) {
            (callback as unknown as (error: null, addresses: ResolvedAddress[]) => void)(null, usable);
          } else callback(null, first.address, first.family);
        },
        (error: Error) => callback(error, '', 0),
      );
    };
  }
}
