// Realtime (DESIGN §17): the hub of this process and its two transports, mounted beside the
// generated apps by the processes that serve them (role `all` or `runtime`).
import type { AppOrigins } from '../tools/app-origin.ts';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../storage/db.ts';
import type { DeploymentRegistry } from '../runtime/registry.ts';
import type { EndUserAuth } from '../runtime/http/end-user-auth.ts';
import type { BuilderOf } from '../runtime/http/app-caller.ts';
import type { AppRateLimits } from '../runtime/http/rate-limits.ts';
import { RealtimeHub } from './hub.ts';
import type { FeedLogger } from './feed.ts';
import type { RealtimeSettings } from './settings.ts';
import { realtimeRoutes } from './transports.ts';

export { RealtimeHub } from './hub.ts';
export { loadRealtimeSettings, DEFAULT_REALTIME_SETTINGS, type RealtimeSettings } from './settings.ts';

export interface Realtime {
  hub: RealtimeHub;
  plugin: (fastify: FastifyInstance) => Promise<void>;
  close(): Promise<void>;
}

export async function startRealtime(
  db: Db,
  deps: {
    settings: RealtimeSettings;
    appsPath: string;
    registry: DeploymentRegistry;
    auth: EndUserAuth;
    /** The holder of a request's management credentials (role, projects): checked on every stream (runtime/http/app-caller.ts). */
    builderPrincipal: BuilderOf;
    publicUrl?: string | null;
    /** The app routes' rate-limit counts: opening a stream counts as a request. */
    rateLimits?: AppRateLimits;
    /** Each application's own origin: a stream opened there gives file URLs on it. */
    origins?: AppOrigins;
    relationLimit?: number;
    embeddedIdLimit?: number;
    logger?: FeedLogger;
  },
): Promise<Realtime> {
  const hub = new RealtimeHub(db, deps.settings, { relationLimit: deps.relationLimit, embeddedIdLimit: deps.embeddedIdLimit }, deps.logger);
  await hub.start();
  const plugin = realtimeRoutes({ appsPath: deps.appsPath, registry: deps.registry, auth: deps.auth, hub, builderPrincipal: deps.builderPrincipal, publicUrl: deps.publicUrl ?? null, origins: deps.origins, ...(deps.rateLimits ? { rateLimits: deps.rateLimits } : {}) });
  return { hub, plugin, close: () => hub.close() };
}
