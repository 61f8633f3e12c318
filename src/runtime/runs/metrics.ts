import { Counter } from 'prom-client';

/**
 * Runs per action and outcome. Not registered anywhere here: the HTTP layer adds it to the
 * process's metrics registry (src/api/metrics.ts), so the runtime does not import the API.
 */
export const actionRunsTotal = new Counter({
  name: 'appbuilder_action_runs_total',
  help: 'Action runs by action id and status (succeeded, failed).',
  labelNames: ['action', 'status'] as const,
  registers: [],
});
