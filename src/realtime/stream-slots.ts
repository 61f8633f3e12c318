// How many realtime streams (SSE and WebSocket alike) may be open at once in this process: per
// client address (an IPv4 address, or the /64 of an IPv6 one, as the rate limits count), per
// application, and per end user. Open streams hold a file descriptor and memory each for as long
// as they last, so an anonymous caller must not hold thousands. A slot is taken when a stream is
// admitted, before it opens (so concurrent opens cannot all slip past the count), and given back
// once when it closes, whichever way it ends.
import type { FastifyReply } from 'fastify';
import { tooManyRequests } from '../runtime/http/rate-limits.ts';

/** What the caps are (RealtimeSettings). */
export interface SlotCaps {
  maxPerAddress: number;
  maxPerApplication: number;
  maxConnectionsPerUser: number;
}

/** A slot holds its stream's place in every count until released (twice is once). */
export interface StreamSlot {
  release(): void;
}

/** Seconds a refused client is told to wait: a slot frees when one of its streams closes. */
export const SLOT_RETRY_SECONDS = 10;

export class StreamSlots {
  readonly #counts = new Map<string, number>();

  constructor(private readonly caps: SlotCaps) {}

  /**
   * A slot for one more stream of `applicationId` from `address` (an address key: rate-limits.ts's
   * addressKey) by end user `userId` (null: anonymous or an administrator); else throws the 429
   * problem naming the cap reached, `Retry-After` set on `reply`.
   */
  take(applicationId: string, address: string, userId: string | null, reply: FastifyReply | null): StreamSlot {
    const keys: Array<[string, number, string]> = [
      [`a ${address}`, this.caps.maxPerAddress, `At most ${this.caps.maxPerAddress} realtime connections from one address.`],
      [`p ${applicationId}`, this.caps.maxPerApplication, `At most ${this.caps.maxPerApplication} realtime connections to one application.`],
    ];
    if (userId !== null) keys.push([`u ${applicationId} ${userId}`, this.caps.maxConnectionsPerUser, `At most ${this.caps.maxConnectionsPerUser} realtime connections per end user.`]);
    for (const [key, cap, detail] of keys) {
      if ((this.#counts.get(key) ?? 0) >= cap) {
        throw tooManyRequests(reply, SLOT_RETRY_SECONDS, `${detail} Close one first.`);
      }
    }
    for (const [key] of keys) this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        for (const [key] of keys) {
          const left = (this.#counts.get(key) ?? 1) - 1;
          if (left > 0) this.#counts.set(key, left);
          else this.#counts.delete(key);
        }
      },
    };
  }

  /** Streams open under one key (tests): `a {address}`, `p {applicationId}`, `u {applicationId} {userId}`. */
  count(key: string): number {
    return this.#counts.get(key) ?? 0;
  }
}
