// The application's variables for the work under way (a generated-app request or an action run),
// seen by the write path's rules and `defaultValue` expressions without every call passing them
// down (the same pattern as storage/request-scope.ts). Outside such work: none.
import { AsyncLocalStorage } from 'node:async_hooks';

const current = new AsyncLocalStorage<Record<string, string>>();

export function withEnv<T>(env: Record<string, string>, work: () => T): T {
  return current.run(env, work);
}

export function currentEnv(): Record<string, string> {
  return current.getStore() ?? {};
}
