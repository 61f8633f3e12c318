import type { Services } from './index.ts';

/** Declares every job type with its handler; a process that does not work only sends. */
export async function registerJobHandlers(services: Services): Promise<void> {
  await services.queue.register('generation', (job) => services.generation.run(job), { retryLimit: 2, expireInSeconds: 300 });
  // A failed migration fails the same way when retried: one retry covers a lost worker.
  await services.queue.register('deployment', (job) => services.deployments.runDeployment(job), { retryLimit: 1, expireInSeconds: 600 });
  await services.queue.register('frontend_bundle', (job) => services.frontendBundles.runJob(job), { retryLimit: 1, expireInSeconds: 300 });
}
