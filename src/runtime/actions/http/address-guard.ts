// Which addresses http.request may reach. Private, loopback, link-local (cloud metadata at
// 169.254.169.254), unique-local, multicast and unspecified addresses are refused unless the
// allow-list (APPBUILDER_HTTP_ALLOW: hosts, IPs or CIDRs, comma separated) names the host or the
// address. Every resolved address is checked and the caller connects to the checked address,
// so a DNS answer that changes between check and connect (rebinding) cannot get through.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { ActionError } from '../errors.ts';

const REFUSED_V4: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this network", incl. unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];
const REFUSED_V6: Array<[string, number]> = [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // old site-local
  ['ff00::', 8], // multicast
];

const refused = new BlockList();
for (const [net, prefix] of REFUSED_V4) refused.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of REFUSED_V6) refused.addSubnet(net, prefix, 'ipv6');

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** The allow-list from the environment (APPBUILDER_HTTP_ALLOW). */
export function allowListFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env.APPBUILDER_HTTP_ALLOW ?? '').split(/[\s,]+/).filter((entry) => entry !== '');
}

class AllowList {
  readonly #hosts = new Set<string>();
  readonly #networks = new BlockList();

  constructor(entries: readonly string[]) {
    for (const raw of entries) {
      const entry = raw.trim().toLowerCase().replace(/^\[|\]$/g, '');
      const [net, prefix] = entry.split('/');
      const family = isIP(net);
      if (family === 0) this.#hosts.add(entry);
      else if (prefix === undefined) this.#networks.addAddress(net, family === 4 ? 'ipv4' : 'ipv6');
      else this.#networks.addSubnet(net, Number(prefix), family === 4 ? 'ipv4' : 'ipv6');
    }
  }

  permits(host: string, address: ResolvedAddress): boolean {
    if (this.#hosts.has(host.toLowerCase())) return true;
    const embedded = embeddedIpv4(address);
    if (embedded && this.#networks.check(embedded, 'ipv4')) return true;
    return this.#networks.check(address.address, address.family === 4 ? 'ipv4' : 'ipv6');
  }
}

/** True for an address http.request must not reach by default. */
export function isRefusedAddress(address: ResolvedAddress): boolean {
  const embedded = embeddedIpv4(address);
  if (embedded && refused.check(embedded, 'ipv4')) return true;
  return refused.check(address.address, address.family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Resolves the URL's host and checks every address; returns the one to connect to.
 * Throws ActionError 502 `http_address_refused` naming the host and the address.
 */
export async function resolveChecked(url: URL, allow: readonly string[]): Promise<ResolvedAddress> {
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
    if (isRefusedAddress(address) && !allowList.permits(host, address)) {
      throw new ActionError(
        502,
        'http_address_refused',
        `http.request to ${host} refused: it resolves to ${address.address}, a private or reserved address. ` +
          'List the host or its network in APPBUILDER_HTTP_ALLOW to allow it.',
      );
    }
  }
  return addresses[0];
}

/** The IPv4 address inside an IPv6 one (mapped, compatible, NAT64, 6to4), else null. */
function embeddedIpv4(address: ResolvedAddress): string | null {
  if (address.family !== 6) return null;
  const g = ipv6Groups(address.address);
  if (!g) return null;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && (g[5] === 0xffff || g[5] === 0)) return v4(g[6], g[7]); // ::ffff:a.b.c.d, ::a.b.c.d
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return v4(g[6], g[7]); // NAT64
  if (g[0] === 0x2002) return v4(g[1], g[2]); // 6to4
  return null;
}

/** The eight 16-bit groups of an IPv6 address (zone dropped, dotted tail converted). */
function ipv6Groups(text: string): number[] | null {
  let s = text.split('%')[0].toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    s = `${s.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  const groups = [...head, ...Array<string>(fill).fill('0'), ...tail].map((h) => parseInt(h, 16));
  return groups.length === 8 && groups.every((n) => n >= 0 && n <= 0xffff) ? groups : null;
}
