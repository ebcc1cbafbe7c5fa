import { BlockList, isIP } from 'node:net';

/** A set of addresses and CIDR ranges (CONSOLE_TRUSTED_PROXY, CONSOLE_TRUSTED_PROXIES). */
export interface TrustedAddresses {
  /** Whether `address` (a socket's; `::ffff:` IPv4-mapped ones as IPv4) is in the set. */
  has(address: string): boolean;
  /** Whether the set holds a loopback address: then any local process is trusted as much. */
  readonly holdsLoopback: boolean;
}

/** The set of `parts` as config.ts checked them: `203.0.113.7`, `10.0.0.0/8`, `::1`. */
export function trustedAddresses(parts: readonly string[]): TrustedAddresses {
  const list = new BlockList();
  for (const part of parts) {
    const [address = '', prefix] = part.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  const has = (raw: string): boolean => {
    const address = raw.startsWith('::ffff:') ? raw.slice('::ffff:'.length) : raw;
    const family = isIP(address);
    return family !== 0 && list.check(address, family === 6 ? 'ipv6' : 'ipv4');
  };
  return { has, holdsLoopback: has('127.0.0.1') || has('::1') };
}
