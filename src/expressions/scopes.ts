// Which variables exist in which scope (DESIGN §5), and what each scope must return.
import type { Scope } from './types.ts';

/** How a variable is typed; resolved to a CEL type by environment.ts. */
export type VariableKind = 'record' | 'auth' | 'string' | 'timestamp' | 'env' | 'secrets' | 'request' | 'dyn';

export interface ScopeSpec {
  variables: Readonly<Record<string, VariableKind>>;
  /** `bool`: the result must be a boolean; `any`: anything. */
  result: 'bool' | 'any';
  /** True when `record` is typed by a model, so a model id is required. */
  needsModel: boolean;
}

const triggerVariables = { request: 'request', auth: 'auth', env: 'env', now: 'timestamp', event: 'dyn' } as const;
const actionVariables = {
  state: 'dyn',
  results: 'dyn',
  error: 'dyn',
  request: 'dyn',
  event: 'dyn',
  auth: 'auth',
  env: 'env',
  now: 'timestamp',
} as const;

export const SCOPES: Readonly<Record<Scope, ScopeSpec>> = {
  rule: {
    variables: { record: 'record', auth: 'auth', operation: 'string', now: 'timestamp', env: 'env' },
    result: 'bool',
    needsModel: true,
  },
  filter: { variables: { record: 'record', auth: 'auth', now: 'timestamp', env: 'env' }, result: 'bool', needsModel: true },
  computed: { variables: { record: 'record', now: 'timestamp', env: 'env' }, result: 'any', needsModel: true },
  validation: { variables: triggerVariables, result: 'bool', needsModel: false },
  matchSelector: { variables: triggerVariables, result: 'bool', needsModel: false },
  initialState: { variables: triggerVariables, result: 'any', needsModel: false },
  // Secrets are readable only here, in effect bindParams (DESIGN §11): anywhere else `secrets` is unknown (409 at save).
  effect: { variables: { ...actionVariables, secrets: 'secrets' }, result: 'any', needsModel: false },
  returnValue: { variables: actionVariables, result: 'any', needsModel: false },
  default: { variables: { auth: 'auth', now: 'timestamp', env: 'env' }, result: 'any', needsModel: false },
};

export const ALL_SCOPES = Object.keys(SCOPES) as Scope[];

/** Variables known before a query runs; partial evaluation folds them (DESIGN §5). */
export const REQUEST_KNOWN_VARIABLES: ReadonlySet<string> = new Set(['auth', 'operation', 'now', 'env']);

export function isScope(value: string): value is Scope {
  return Object.hasOwn(SCOPES, value);
}
