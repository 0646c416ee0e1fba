import { BlockList, isIP } from 'node:net';

// Addresses that are not on the public internet: loopback, private, shared, link-local
// (with the cloud metadata address), documentation, benchmarking, multicast, reserved.
const special = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) special.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001::', 32],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) special.addSubnet(net, prefix, 'ipv6');

/** The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`), else the input. */
function unmap(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m ? m[1]! : address;
}

/** True for loopback, private, link-local, metadata and other non-public addresses. */
export function isSpecialAddress(address: string): boolean {
  const a = unmap(address);
  const family = isIP(a);
  if (family === 0) return true;
  return special.check(a, family === 4 ? 'ipv4' : 'ipv6');
}

/** Thrown (or passed to callbacks) when an outgoing connection would reach a refused address. */
export class AddressNotAllowedError extends Error {
  readonly code = 'EADDRNOTALLOWED';
  constructor(host: string, address: string) {
    super(`${host} resolves to ${address}, which is not a public address (add it to PRESSROOM_ALLOW_PRIVATE_ADDRESSES to allow it)`);
  }
}

/**
 * Which addresses outgoing requests (webhooks, media downloads) may connect to: every public
 * address, and non-public ones only when the operator's allow-list names them by address,
 * CIDR or host name. Checked on the resolved address of every connection, so DNS answers
 * and redirects cannot lead around it.
 */
export class AddressPolicy {
  private readonly allowed = new BlockList();
  private readonly hosts = new Set<string>();

  constructor(allowList: readonly string[]) {
    for (const raw of allowList) {
      const entry = raw.trim().toLowerCase().replace(/^\[|\]$/g, '');
      if (!entry) continue;
      const [net, bits] = entry.split('/') as [string, string | undefined];
      const family = isIP(net);
      if (family === 0) {
        this.hosts.add(entry);
        continue;
      }
      const type = family === 4 ? 'ipv4' : 'ipv6';
      if (bits === undefined) this.allowed.addAddress(net, type);
      else this.allowed.addSubnet(net, Number(bits), type);
    }
  }

  /** Whether connecting to `address` (resolved from `host`) is allowed. */
  isAllowed(address: string, host: string): boolean {
    if (!isSpecialAddress(address)) return true;
    if (this.hosts.has(host.toLowerCase().replace(/^\[|\]$/g, ''))) return true;
    const a = unmap(address);
    const family = isIP(a);
    return family !== 0 && this.allowed.check(a, family === 4 ? 'ipv4' : 'ipv6');
  }
}
