import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { actionRunsTotal } from '../runtime/runs/metrics.ts';
import { appRequestDuration, appRequestsTotal } from '../monitoring/prometheus.ts';
import { realtimeChangesTotal, realtimeConnections, realtimeSlowDroppedTotal, realtimeStatementsTotal } from '../realtime/metrics.ts';

/** One registry per process; other modules add their own metrics to it. */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });
// Runs of generated apps' actions (counted by the runtime).
metricsRegistry.registerMetric(actionRunsTotal);
// Generated-app requests by application and version (monitoring/prometheus.ts).
metricsRegistry.registerMetric(appRequestsTotal);
metricsRegistry.registerMetric(appRequestDuration);
// Realtime connections and the statements they cost (realtime/metrics.ts).
for (const metric of [realtimeConnections, realtimeStatementsTotal, realtimeChangesTotal, realtimeSlowDroppedTotal]) metricsRegistry.registerMetric(metric);

const httpDuration = new Histogram({
  name: 'appbuilder_http_request_duration_seconds',
  help: 'HTTP request duration by route, method and status.',
  labelNames: ['route', 'method', 'status'] as const,
  buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers: [metricsRegistry],
});

const httpRequests = new Counter({
  name: 'appbuilder_http_requests_total',
  help: 'HTTP requests by route, method and status.',
  labelNames: ['route', 'method', 'status'] as const,
  registers: [metricsRegistry],
});

export function registerMetrics(app: FastifyInstance, exposePublicly: boolean): void {
  // A callback hook, not an async one: no promise on every request's path (issue 43).
  app.addHook('onResponse', (request, reply, done) => {
    // The route template, never the raw URL: ids would explode the label set.
    const labels = { route: request.routeOptions.url ?? 'unmatched', method: request.method, status: String(reply.statusCode) };
    httpRequests.inc(labels);
    httpDuration.observe(labels, reply.elapsedTime / 1000);
    done();
  });
  if (!exposePublicly) return;
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(metricsRegistry.contentType);
    return metricsRegistry.metrics();
  });
}
