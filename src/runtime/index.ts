import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../storage/db.ts';
import { AppKeys, loadMasterKey } from './app-keys.ts';
import { DeploymentRegistry } from './registry.ts';
import { EndUserAuth } from './http/end-user-auth.ts';
import { AfterCommit } from './http/after-commit.ts';
import { generatedAppsPlugin } from './http/plugin.ts';
import { resourceRoutes } from './http/resource-routes.ts';
import { authRoutes } from './http/auth-routes.ts';

/** The runtime of generated applications: what is served, who calls, and the routes. */
export interface Runtime {
  registry: DeploymentRegistry;
  auth: EndUserAuth;
  afterCommit: AfterCommit;
  plugin(appsPath: string): (fastify: FastifyInstance) => Promise<void>;
}

export async function createRuntime(db: Db, options: { builderCustomer(request: FastifyRequest): Promise<string> }): Promise<Runtime> {
  const registry = new DeploymentRegistry(db);
  const auth = new EndUserAuth(db, new AppKeys(db, await loadMasterKey(db)));
  const afterCommit = new AfterCommit();
  return {
    registry,
    auth,
    afterCommit,
    plugin: (appsPath) =>
      generatedAppsPlugin({
        appsPath,
        registry,
        auth,
        builderCustomer: options.builderCustomer,
        sources: [resourceRoutes(db, afterCommit), authRoutes(auth)],
      }),
  };
}
