import type { Services } from './index.ts';

/** pg-boss's minimum: a deployment whose worker stops beating for this long is failed and retried. */
export const DEPLOYMENT_HEARTBEAT_SECONDS = 10;

/** Retries of a deployment after its first attempt. */
export const DEPLOYMENT_RETRIES = 3;

/** Declares every job type with its handler; a process that does not work only sends. */
export async function registerJobHandlers(services: Services): Promise<void> {
  await services.queue.register('generation', (job) => services.generation.run(job), { retryLimit: 2, expireInSeconds: 300 });
  // Retried 3 times with backoff (2, 4, 8 s, with jitter), so repeated crashes of workers do not
  // fail a deployment; each attempt is one transaction (runDeployment), so a retry starts from
  // the committed schema. On PostgreSQL a heartbeat gives a killed worker's job to another one
  // within seconds (its transaction was rolled back with its connection), not after the 600 s
  // lease. Not on PGlite: one process owns the store, and the heartbeat would queue behind the
  // migration there.
  const heartbeat = services.db.driver === 'postgres' ? { heartbeatSeconds: DEPLOYMENT_HEARTBEAT_SECONDS } : {};
  await services.queue.register('deployment', (job) => services.deployments.runDeployment(job), {
    retryLimit: DEPLOYMENT_RETRIES,
    retryDelaySeconds: 2,
    retryDelayMaxSeconds: 60,
    expireInSeconds: 600,
    ...heartbeat,
  });
  await services.queue.register('frontend_bundle', (job) => services.frontendBundles.runJob(job), { retryLimit: 1, expireInSeconds: 300 });
  // Building is deterministic: a document that cannot be read fails the same way again, so no retry.
  await services.queue.register('specification_generation', (job) => services.specifications.run(job), { retryLimit: 0, expireInSeconds: 300 });
  // An import's rows are all-or-nothing per attempt (one transaction), but a retry would read and
  // write them again for nothing when a document is bad: no retry; the lease covers large imports.
  await services.queue.register('data_import', (job) => services.dataImports.run(job), { retryLimit: 0, expireInSeconds: 3600 });
  // A backup or a restore is one snapshot or one transaction: a retry would start over, so none.
  await services.queue.register('backup', (job) => services.backups.runBackup(job), { retryLimit: 0, expireInSeconds: 3600 });
  await services.queue.register('restore', (job) => services.backups.runRestore(job), { retryLimit: 0, expireInSeconds: 3600 });
  // Rendering a stored file is deterministic too: a node that cannot be rendered fails again.
  await services.queue.register('figma_code_generation', (job) => services.figma.run(job), { retryLimit: 0, expireInSeconds: 300 });
}
