// The counts of open realtime streams (src/realtime/stream-slots.ts) on their own: per address (an
// IPv6 /64 as one address), per application and per end user; a slot given back once.
import { describe, expect, it } from 'vitest';
import { Problem } from '../../src/errors.ts';
import { addressKey } from '../../src/runtime/http/rate-limits.ts';
import { StreamSlots } from '../../src/realtime/stream-slots.ts';

const refusal = (fn: () => unknown): Problem => {
  try {
    fn();
  } catch (error) {
    return error as Problem;
  }
  throw new Error('not refused');
};

describe('stream slots', () => {
  it('caps one address, counting every address of an IPv6 /64 as one and IPv4 addresses apart', () => {
    const slots = new StreamSlots({ maxPerAddress: 2, maxPerApplication: 100, maxConnectionsPerUser: 100 });
    slots.take('app', addressKey('2001:db8:1:2::1'), null, null);
    slots.take('app', addressKey('2001:db8:1:2:ffff::9'), null, null);
    const refused = refusal(() => slots.take('app', addressKey('2001:0db8:0001:0002:aaaa:bbbb:cccc:dddd'), null, null));
    expect(refused.status).toBe(429);
    expect(refused.message).toMatch(/from one address/);
    // Another /64, and IPv4 addresses, each have their own count.
    slots.take('app', addressKey('2001:db8:1:3::1'), null, null);
    slots.take('app', addressKey('192.0.2.1'), null, null);
    slots.take('app', addressKey('192.0.2.2'), null, null);
    expect(slots.count(`a ${addressKey('192.0.2.1')}`)).toBe(1);
  });

  it('caps one application across addresses, and one end user', () => {
    const slots = new StreamSlots({ maxPerAddress: 100, maxPerApplication: 3, maxConnectionsPerUser: 1 });
    slots.take('app', '192.0.2.1', 'ann', null);
    expect(refusal(() => slots.take('app', '192.0.2.2', 'ann', null)).message).toMatch(/per end user/);
    slots.take('app', '192.0.2.3', null, null);
    slots.take('app', '192.0.2.4', null, null);
    expect(refusal(() => slots.take('app', '192.0.2.5', null, null)).message).toMatch(/to one application/);
    // Another application is counted apart.
    slots.take('other', '192.0.2.5', null, null);
  });

  it('gives a slot back once however often it is released, and a refusal takes nothing', () => {
    const slots = new StreamSlots({ maxPerAddress: 1, maxPerApplication: 10, maxConnectionsPerUser: 10 });
    const slot = slots.take('app', '192.0.2.1', null, null);
    refusal(() => slots.take('app', '192.0.2.1', null, null));
    expect(slots.count('p app')).toBe(1);
    slot.release();
    slot.release();
    expect(slots.count('a 192.0.2.1')).toBe(0);
    expect(slots.count('p app')).toBe(0);
    slots.take('app', '192.0.2.1', null, null);
    expect(slots.count('p app')).toBe(1);
  });
});
