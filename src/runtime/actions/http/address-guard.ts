// Which addresses http.request may reach. Every range of the IANA IPv4 and IPv6 special-purpose
// address registries (private, loopback, link-local with the cloud metadata at 169.254.169.254,
// shared, documentation, benchmarking, reserved, multicast, NAT64, 6to4, Teredo, ...) and every
// address of this host's own interfaces (os.networkInterfaces(): its eth0 address reaches local
// services as well as loopback does) are refused unless the allow-list (APPBUILDER_HTTP_ALLOW:
// hosts, IPs or CIDRs, comma separated) names the host or the address. IPv6 forms that embed an
// IPv4 address (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::a.b.c.d, 6to4 2002:aabb:ccdd::) are refused
// when the embedded address is. All matching is node:net's BlockList; nothing parses addresses by
// hand. Every resolved address is checked and the caller connects to the checked address, so a
// DNS answer that changes between check and connect (rebinding) cannot get through.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { ActionError } from '../errors.ts';

/** IANA IPv4 Special-Purpose Address Registry (and multicast), as [network, prefix]. */
export const SPECIAL_PURPOSE_V4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network", incl. unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments (DS-Lite, NAT64 discovery, ...)
  ['192.0.2.0', 24], // documentation TEST-NET-1
  ['192.31.196.0', 24], // AS112-v4
  ['192.52.193.0', 24], // AMT
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['192.175.48.0', 24], // direct delegation AS112
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation TEST-NET-2
  ['203.0.113.0', 24], // documentation TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, incl. limited broadcast 255.255.255.255
];

/** IANA IPv6 Special-Purpose Address Registry (and multicast, old site-local), as [network, prefix]. */
export const SPECIAL_PURPOSE_V6: ReadonlyArray<readonly [string, number]> = [
  ['::', 96], // unspecified ::/128, loopback ::1/128, deprecated IPv4-compatible ::a.b.c.d
  ['::ffff:0:0:0', 96], // IPv4-translated (SIIT)
  ['64:ff9b:1::', 48], // local-use IPv4/IPv6 translation
  ['100::', 64], // discard-only
  ['100:0:0:1::', 64], // dummy IPv6 prefix
  ['2001::', 23], // IETF protocol assignments: Teredo 2001::/32, benchmarking, ORCHID, ...
  ['2001:db8::', 32], // documentation
  ['2620:4f:8000::', 48], // direct delegation AS112
  ['3fff::', 20], // documentation
  ['5f00::', 16], // segment routing SIDs
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // old site-local
  ['ff00::', 8], // multicast
];

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** The allow-list from the environment (APPBUILDER_HTTP_ALLOW). */
export function allowListFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env.APPBUILDER_HTTP_ALLOW ?? '').split(/[\s,]+/).filter((entry) => entry !== '');
}

const hex = (high: number, low: number) => ((high << 8) | low).toString(16);

/**
 * Adds an IPv4 network and the IPv6 forms that embed it: mapped (::ffff:0:0/96), NAT64
 * (64:ff9b::/96) and 6to4 (2002::/16, the IPv4 address in bits 16-47).
 */
function addV4Network(list: BlockList, network: string, prefix: number): void {
  list.addSubnet(network, prefix, 'ipv4');
  const [a, b, c, d] = network.split('.').map(Number);
  list.addSubnet(`::ffff:${network}`, 96 + prefix, 'ipv6');
  list.addSubnet(`64:ff9b::${network}`, 96 + prefix, 'ipv6');
  list.addSubnet(`2002:${hex(a, b)}:${hex(c, d)}::`, 16 + prefix, 'ipv6');
}

function addNetwork(list: BlockList, network: string, prefix: number | undefined, family: 4 | 6): void {
  if (family === 4) addV4Network(list, network, prefix ?? 32);
  else list.addSubnet(network, prefix ?? 128, 'ipv6');
}

const specialPurpose = new BlockList();
for (const [network, prefix] of SPECIAL_PURPOSE_V4) addV4Network(specialPurpose, network, prefix);
for (const [network, prefix] of SPECIAL_PURPOSE_V6) specialPurpose.addSubnet(network, prefix, 'ipv6');

/** The addresses of this host's interfaces, rebuilt when they change (an address added at run time counts). */
let ownAddresses: { key: string; list: BlockList } | null = null;

function hostAddresses(): BlockList {
  const addresses = Object.values(networkInterfaces())
    .flat()
    .flatMap((info) => (info ? [{ address: withoutZone(info.address), family: info.family === 'IPv4' ? 4 : 6 } as const] : []));
  const key = addresses.map((a) => a.address).join(',');
  if (ownAddresses?.key !== key) {
    const list = new BlockList();
    for (const { address, family } of addresses) addNetwork(list, address, undefined, family);
    ownAddresses = { key, list };
  }
  return ownAddresses.list;
}

/** `fe80::1%eth0` → `fe80::1`: BlockList does not match an address with a zone at all. */
function withoutZone(address: string): string {
  const zone = address.indexOf('%');
  return zone === -1 ? address : address.slice(0, zone);
}

function matches(list: BlockList, address: ResolvedAddress): boolean {
  return list.check(withoutZone(address.address), address.family === 4 ? 'ipv4' : 'ipv6');
}

class AllowList {
  readonly #hosts = new Set<string>();
  readonly #networks = new BlockList();

  constructor(entries: readonly string[]) {
    for (const raw of entries) {
      const entry = raw.trim().toLowerCase().replace(/^\[|\]$/g, '');
      const [network, prefix] = entry.split('/');
      const family = isIP(network);
      if (family === 0) this.#hosts.add(entry);
      else addNetwork(this.#networks, network, prefix === undefined ? undefined : Number(prefix), family as 4 | 6);
    }
  }

  permits(host: string, address: ResolvedAddress): boolean {
    return this.#hosts.has(host.toLowerCase()) || matches(this.#networks, address);
  }
}

/** Why http.request must not reach an address by default, or null when it may. */
export function refusalReason(address: ResolvedAddress): string | null {
  if (matches(specialPurpose, address)) return 'a private or special-purpose address';
  if (matches(hostAddresses(), address)) return 'an address of this host';
  return null;
}

/** True for an address http.request must not reach by default. */
export function isRefusedAddress(address: ResolvedAddress): boolean {
  return refusalReason(address) !== null;
}

/**
 * Resolves the URL's host and checks every address; returns the one to connect to.
 * Throws ActionError 502 `http_address_refused` naming the host and the address (and `what` connects).
 */
export async function resolveChecked(url: URL, allow: readonly string[], what = 'http.request'): Promise<ResolvedAddress> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(host);
  let addresses: ResolvedAddress[];
  if (literal !== 0) {
    addresses = [{ address: host, family: literal as 4 | 6 }];
  } else {
    try {
      const found = await lookup(host, { all: true, verbatim: true });
      addresses = found.map((a) => ({ address: a.address, family: a.family as 4 | 6 }));
    } catch (error) {
      throw new ActionError(502, 'http_dns_error', `Could not resolve ${host}: ${(error as Error).message}`);
    }
    if (addresses.length === 0) throw new ActionError(502, 'http_dns_error', `Could not resolve ${host}.`);
  }
  const allowList = new AllowList(allow);
  for (const address of addresses) {
    const reason = refusalReason(address);
    if (reason !== null && !allowList.permits(host, address)) {
      throw new ActionError(
        502,
        'http_address_refused',
        `${what} to ${host} refused: it resolves to ${address.address}, ${reason}. ` +
          'List the host or its network in APPBUILDER_HTTP_ALLOW to allow it.',
      );
    }
  }
  return addresses[0];
}
