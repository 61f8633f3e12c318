// Realtime (DESIGN §17): the hub of this process and its two transports, mounted beside the
// generated apps by the processes that serve them (role `all` or `runtime`).
import type { AppOrigins } from '../tools/app-origin.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../storage/db.ts';
import type { DeploymentRegistry } from '../runtime/registry.ts';
import type { EndUserAuth } from '../runtime/http/end-user-auth.ts';
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
    builderCustomer(request: FastifyRequest): Promise<string>;
    publicUrl?: string | null;
    origins?: AppOrigins;
    relationLimit?: number;
    embeddedIdLimit?: number;
    logger?: FeedLogger;
  },
): Promise<Realtime> {
  const hub = new RealtimeHub(db, deps.settings, { relationLimit: deps.relationLimit, embeddedIdLimit: deps.embeddedIdLimit }, deps.logger);
  await hub.start();
  const plugin = realtimeRoutes({ appsPath: deps.appsPath, registry: deps.registry, auth: deps.auth, hub, builderCustomer: deps.builderCustomer, publicUrl: deps.publicUrl ?? null, origins: deps.origins });
  return { hub, plugin, close: () => hub.close() };
}
