// Public API of the workflow engine of generated applications.
export { runAction, DEFAULT_MAX_FOREACH_DEPTH, DEFAULT_MAX_STEPS, DEFAULT_WALL_TIME_MS } from './engine.ts';
export { ActionError } from './errors.ts';
export { EFFECTS } from './effects/index.ts';
export { DEFAULT_HTTP_TIMEOUT_MS, MAX_HTTP_TIMEOUT_MS } from './effects/http-request.ts';
export { MAX_REDIRECTS, MAX_RESPONSE_BYTES } from './http/client.ts';
export { allowListFromEnv, isRefusedAddress } from './http/address-guard.ts';
export type * from './types.ts';
