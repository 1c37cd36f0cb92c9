import { BlockList, isIP } from 'node:net';

/**
 * Where webhook providers may connect. By default only public addresses: loopback, private,
 * link-local (cloud metadata at 169.254.169.254), carrier-grade NAT, multicast and reserved ranges
 * are refused, checked on the address the host name resolves to. `allow` lists exceptions: host names
 * (exact, case-insensitive), addresses, or CIDR ranges (`10.1.0.0/16`, `::1/128`).
 */
export interface NetworkPolicy {
  readonly allow?: readonly string[];
}

const FORBIDDEN_V4 = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.0.2.0', 24],
  ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const;
const FORBIDDEN_V6 = [
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['100::', 64], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const;

const forbidden = new BlockList();
for (const [net, prefix] of FORBIDDEN_V4) forbidden.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of FORBIDDEN_V6) forbidden.addSubnet(net, prefix, 'ipv6');

/** The IPv4 address inside an IPv4-mapped IPv6 one (`::ffff:127.0.0.1`), so mapped loopback is caught too. */
function unmapped(address: string): string {
  const match = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return match ? match[1]! : address;
}

/** Decides, per host name and resolved address, whether a connection may be made. */
export interface AddressGuard {
  hostAllowed(hostname: string): boolean;
  /** Null when the address may be used, else why not. */
  refusal(address: string): string | null;
}

export function addressGuard(policy?: NetworkPolicy): AddressGuard {
  // A provider passes the same policy to every request: its guard is built once.
  const key = policy ?? NO_POLICY;
  let guard = guards.get(key);
  if (!guard) guards.set(key, (guard = buildGuard(key)));
  return guard;
}

const NO_POLICY: NetworkPolicy = {};
const guards = new WeakMap<NetworkPolicy, AddressGuard>();

function buildGuard(policy: NetworkPolicy): AddressGuard {
  const hosts = new Set<string>();
  const allowed = new BlockList();
  for (const entry of policy.allow ?? []) {
    const [net, prefix] = entry.split('/');
    const family = isIP(net ?? '');
    if (family === 0) hosts.add(entry.toLowerCase());
    else if (prefix === undefined) allowed.addAddress(net!, family === 4 ? 'ipv4' : 'ipv6');
    else allowed.addSubnet(net!, Number(prefix), family === 4 ? 'ipv4' : 'ipv6');
  }
  return {
    hostAllowed: (hostname) => hosts.has(hostname.toLowerCase()),
    refusal(address) {
      const plain = unmapped(address);
      const family = isIP(plain) === 4 ? 'ipv4' : 'ipv6';
      if (allowed.check(plain, family) || (plain !== address && allowed.check(address, 'ipv6'))) return null;
      return forbidden.check(plain, family) ? `${address} is not a public address (allow it with the provider's network.allow option)` : null;
    },
  };
}
