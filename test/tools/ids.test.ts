// uuidv7 draws its random bits from a pooled block of CSPRNG bytes: the ids must stay distinct
// across block refills, well-formed version-7 UUIDs, and ordered by their millisecond.
import { describe, expect, it } from 'vitest';
import { isUuid, uuidv7 } from '../../src/tools/ids.ts';

describe('uuidv7', () => {
  it('gives distinct, well-formed version-7 ids across many pool refills', () => {
    const ids = Array.from({ length: 5000 }, () => uuidv7());
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(isUuid(id)).toBe(true);
      expect(id[14]).toBe('7');
      expect('89ab').toContain(id[19]);
    }
  });

  it('orders ids by their time and keeps the random part random', () => {
    const early = uuidv7(1_700_000_000_000);
    const late = uuidv7(1_700_000_000_001);
    expect(early < late).toBe(true);
    expect(early.slice(0, 13)).toBe('018bcfe5-6800');
    const sameMs = Array.from({ length: 100 }, () => uuidv7(1_700_000_000_000).slice(14));
    expect(new Set(sameMs).size).toBe(100);
  });
});
