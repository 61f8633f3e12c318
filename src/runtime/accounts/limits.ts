// Rate limits of the account routes (DESIGN §18) beyond log-in and sign-up (login-throttle.ts):
// per address (APPBUILDER_AUTH_RATE_LIMIT a minute, as log-in) and per account
// (APPBUILDER_AUTH_ACCOUNT_RATE_LIMIT a minute): the user, the email asked about (registered or
// not, counted alike, so a 429 tells nothing about it) or the token sent. Counted in this process.
import { MinuteCounter, addressKey } from '../http/rate-limits.ts';
import { tooMany } from '../http/login-throttle.ts';
import type { AppResponse } from '../http/types.ts';
import type { CompiledApp } from '../compiled-app.ts';

export class AccountLimits {
  readonly #addresses: MinuteCounter | null;
  readonly #accounts: MinuteCounter | null;

  constructor(perAddress: number, perAccount: number) {
    this.#addresses = perAddress > 0 ? new MinuteCounter(perAddress) : null;
    this.#accounts = perAccount > 0 ? new MinuteCounter(perAccount) : null;
  }

  /** The 429 answer of a request past either limit, or null. `account`: null when the request names none. */
  refuse(app: CompiledApp, address: string, account: string | null): AppResponse | null {
    const byAddress = this.#addresses?.hit(`${app.applicationId} ${addressKey(address)}`);
    if (byAddress?.exceeded) return tooMany(byAddress.resetSeconds, `More than ${byAddress.limit} account requests from this address in a minute.`);
    if (account === null) return null;
    const byAccount = this.#accounts?.hit(`${app.applicationId} ${account}`);
    if (byAccount?.exceeded) return tooMany(byAccount.resetSeconds, `More than ${byAccount.limit} requests for this account in a minute.`);
    return null;
  }
}
