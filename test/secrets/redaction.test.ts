// Redaction of secret values (DESIGN §11) as a property: whatever the text around them, a
// redacted value holds none of the secrets (besides any that fit inside the marker itself).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED, redactText, redactValues } from '../../src/secrets/redaction.ts';

const secret = fc.string({ minLength: 3, maxLength: 12 }).filter((s) => !REDACTED.includes(s));

describe('redaction', () => {
  it('leaves no secret in any string, however the secrets overlap the text or each other', () => {
    fc.assert(
      fc.property(fc.array(secret, { minLength: 1, maxLength: 3 }), fc.array(fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('[redacte', 'd]', ']x')), { maxLength: 8 }), (secrets, noise) => {
        const values = [...secrets].sort((a, b) => b.length - a.length);
        const text = noise.flatMap((part, i) => [part, secrets[i % secrets.length]]).join('');
        const out = redactText(text, values);
        for (const value of values) expect(out.includes(value)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('redacts a value spelled anew by a replacement and the text after it', () => {
    // One pass gives '[redacted]x', which ends in the value again.
    expect(redactText('d]xx', ['d]x'])).not.toContain('d]x');
    expect(redactText('key ]]ab', [']ab'])).not.toContain(']ab');
  });

  it('redacts nested values, never member names, and keeps everything else', () => {
    const out = redactValues({ a: ['x sk-1 y', { 'sk-1': 2, n: 3, d: null }], b: true }, ['sk-1']);
    expect(out).toEqual({ a: [`x ${REDACTED} y`, { 'sk-1': 2, n: 3, d: null }], b: true });
  });

  it('leaves the shape alone with a one-letter secret: steps stays steps', () => {
    const out = redactValues({ steps: [{ status: 'ok', output: 'yes s' }] }, ['s']);
    expect(out).toEqual({ steps: [{ status: 'ok', output: `ye${REDACTED} ${REDACTED}` }] });
  });
});
