// Issue 18 item 3, the attacker's requests: an action's http.request to this host's own interface
// address (not loopback) must not reach a local service listening there, every IANA
// special-purpose range (and the IPv6 forms that embed a refused IPv4 address) is refused before
// connecting, and APPBUILDER_HTTP_ALLOW lets a named address or network through again.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRefusedAddress } from '../../src/runtime/actions/index.ts';
import { refusalReason, resolveChecked } from '../../src/runtime/actions/http/address-guard.ts';
import { action, harness, run } from '../runtime-actions/support.ts';

/** The first non-internal IPv4 address of this host (its eth0 address), if it has one. */
const hostAddress = Object.values(networkInterfaces())
  .flat()
  .find((info) => info && !info.internal && info.family === 'IPv4')?.address;

function call(url: string, headers: Record<string, string> = {}) {
  return action([{ actionEffectId: 'call', effect: 'http.request', params: { method: 'GET', url, headers } }], { bindReturnValue: 'results.call' });
}

const family = (address: string) => (address.includes(':') ? 6 : 4);
const refused = (address: string) => isRefusedAddress({ address, family: family(address) });

describe.skipIf(!hostAddress)("http.request to this host's own interface address", () => {
  let server: Server;
  let url: string;
  let hits = 0;
  let lastHops: string | undefined;

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits++;
      lastHops = req.headers['x-appbuilder-hops'] as string | undefined;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ local: 'secret service' }));
    });
    await new Promise<void>((resolve) => server.listen(0, hostAddress, resolve));
    url = `http://${hostAddress}:${(server.address() as AddressInfo).port}/internal`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('is refused (502 http_address_refused) before connecting: the local service sees nothing', async () => {
    const before = hits;
    const record = await run(call(url), harness());
    expect(record.status).toBe('failed');
    expect(record.error).toMatchObject({ code: 'http_address_refused', status: 502, effectId: 'call' });
    expect(record.error?.message).toContain(hostAddress);
    expect(hits).toBe(before);
    // The reason is this host's address even when the address is not special-purpose itself.
    const reason = refusalReason({ address: hostAddress!, family: 4 });
    expect(reason).not.toBeNull();
    console.info(`[outbound-guard] ${hostAddress} refused as ${reason}`);
  });

  it('is reached when APPBUILDER_HTTP_ALLOW names the address, with the hop header set by us', async () => {
    const before = hits;
    // A builder-supplied hop header cannot reset the count.
    const record = await run(call(url, { 'X-Appbuilder-Hops': '0' }), harness(), {}, { httpAllow: [hostAddress!] });
    expect(record.status).toBe('succeeded');
    expect(record.result).toMatchObject({ status: 200, body: { local: 'secret service' } });
    expect(hits).toBe(before + 1);
    expect(lastHops).toBe('1');
  });
});

describe.skipIf(hostAddress)('http.request to the host interface address (skipped)', () => {
  it('has no non-loopback IPv4 interface here', () => {
    console.warn('[outbound-guard] this host has no non-internal IPv4 interface: the interface test is skipped');
  });
});

describe('IANA special-purpose ranges', () => {
  // One address in every range of the IPv4 and IPv6 special-purpose registries (and multicast).
  const V4 = [
    '0.0.0.0', '0.1.2.3', '10.1.2.3', '100.64.0.1', '100.127.255.254', '127.0.0.1', '127.255.0.1', '169.254.169.254', '172.16.0.1',
    '172.31.255.1', '192.0.0.1', '192.0.0.170', '192.0.2.10', '192.31.196.1', '192.52.193.1', '192.88.99.1', '192.168.1.1',
    '192.175.48.1', '198.18.0.1', '198.19.255.1', '198.51.100.7', '203.0.113.9', '224.0.0.1', '239.255.255.250', '240.0.0.1',
    '255.255.255.255',
  ];
  const V6 = [
    '::', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:192.0.2.1', '::ffff:a9fe:a9fe', '::127.0.0.1',
    '::ffff:0:10.0.0.1', '64:ff9b::10.0.0.1', '64:ff9b::c000:201', '64:ff9b::a9fe:a9fe', '64:ff9b:1::1', '64:ff9b:1:ffff::8.8.8.8',
    '100::1', '100::ffff:ffff:ffff:ffff', '100:0:0:1::1', '2001::1', '2001:0:4136:e378::1', '2001:2::1', '2001:10::1', '2001:20::1',
    '2001:1ff::1', '2001:db8::1', '2001:db8:ffff::1', '2002:7f00:1::1', '2002:a00:1::', '2002:c000:201::1', '2002:a9fe:a9fe::1',
    '2620:4f:8000::1', '3fff::1', '5f00::1', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'fe80::1%eth0', 'febf::1', 'fec0::1', 'ff02::1',
    'ff0e::1',
  ];
  const PUBLIC = ['8.8.8.8', '93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450::1', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8', '2002:808:808::1'];

  it.each([...V4, ...V6])('refuses %s', (address) => {
    expect(refused(address)).toBe(true);
  });

  it.each(PUBLIC)('lets the public address %s through', (address) => {
    expect(refused(address)).toBe(false);
  });

  it('refuses URLs naming such addresses before connecting (no network needed)', async () => {
    for (const host of ['192.0.2.1', '198.51.100.1', '203.0.113.1', '[64:ff9b:1::1]', '[2001::1]', '[2001:db8::1]', '[::ffff:127.0.0.1]', '[2002:7f00:1::1]']) {
      const record = await run(call(`http://${host}:9/`), harness());
      expect(record.error, host).toMatchObject({ code: 'http_address_refused', status: 502 });
    }
  });
});

describe('APPBUILDER_HTTP_ALLOW', () => {
  it('lets a listed address, a listed network and a listed host name through, and nothing else', async () => {
    const target = (host: string) => new URL(`http://${host}/`);
    await expect(resolveChecked(target('198.51.100.7'), [])).rejects.toMatchObject({ code: 'http_address_refused' });
    await expect(resolveChecked(target('198.51.100.7'), ['198.51.100.0/24'])).resolves.toEqual({ address: '198.51.100.7', family: 4 });
    await expect(resolveChecked(target('198.51.100.7'), ['198.51.100.7'])).resolves.toMatchObject({ address: '198.51.100.7' });
    await expect(resolveChecked(target('198.51.100.8'), ['198.51.100.7'])).rejects.toMatchObject({ code: 'http_address_refused' });
    // An allowed IPv4 network covers its embedded IPv6 forms; a listed IPv6 network works too.
    await expect(resolveChecked(target('[::ffff:198.51.100.7]'), ['198.51.100.0/24'])).resolves.toMatchObject({ family: 6 });
    await expect(resolveChecked(target('[2001:db8::5]'), ['2001:db8::/32'])).resolves.toMatchObject({ address: '2001:db8::5' });
    await expect(resolveChecked(target('[2001:db8::5]'), ['2001:db8:1::/48'])).rejects.toMatchObject({ code: 'http_address_refused' });
    // A host name on the list: localhost resolves to loopback, allowed by name.
    await expect(resolveChecked(target('localhost'), [])).rejects.toMatchObject({ code: 'http_address_refused' });
    await expect(resolveChecked(target('localhost'), ['localhost'])).resolves.toMatchObject({ address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/) });
  });
});
