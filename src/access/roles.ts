/**
 * Builder roles (DESIGN §10), ordered: each role may do everything the one before it may.
 * An API client's own access token counts as `owner`.
 */
export const ROLES = ['viewer', 'editor', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

export function roleAtLeast(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}

/** Who made a change: kept on audit events, versions, jobs, runs and files. */
export interface Actor {
  type: 'apiClient' | 'builder';
  id: string;
}

/**
 * The role a management route needs when it declares none: reads need `viewer`,
 * writes `editor`. Routes that need more say so with `config: { requiredRole }`.
 */
export function defaultRequiredRole(method: string): Role {
  return method === 'GET' || method === 'HEAD' ? 'viewer' : 'editor';
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The least role that may call this management route (DESIGN §10); default by method. */
    requiredRole?: Role;
  }
}
