// Per-application series for the operator's Prometheus `/metrics` (DESIGN §19), labelled by
// application and version (and, for the count, route template and status class). Cardinality is
// bounded: route templates come from the definitions (never ids), and past MAX_SERIES distinct
// application/version/route sets the rest are counted under `other`, so a flood of versions or apps
// cannot grow the scrape without bound. Not registered here: src/api/metrics.ts adds them to the
// process's registry (monitoring does not import the API).
import { Counter, Histogram } from 'prom-client';

const MAX_SERIES = 2_000;
const OTHER = 'other';

export const appRequestsTotal = new Counter({
  name: 'appbuilder_app_requests_total',
  help: 'Generated-app requests by application, version, route template and status class (2xx, 3xx, 4xx, 5xx).',
  labelNames: ['application', 'version', 'route', 'status_class'] as const,
  registers: [],
});

export const appRequestDuration = new Histogram({
  name: 'appbuilder_app_request_duration_seconds',
  help: 'Generated-app request duration by application and version.',
  labelNames: ['application', 'version'] as const,
  buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers: [],
});

const seen = new Set<string>();

/** Counts one request; a new label set beyond the bound is counted as `other`. */
export function observeAppRequest(application: string, version: string, route: string, status: number, seconds: number): void {
  const key = `${application}\u0000${version}\u0000${route}`;
  let labels = { application, version, route };
  if (!seen.has(key)) {
    if (seen.size < MAX_SERIES) seen.add(key);
    else labels = { application: OTHER, version: OTHER, route: OTHER };
  }
  appRequestsTotal.inc({ ...labels, status_class: `${Math.floor(status / 100)}xx` });
  appRequestDuration.observe({ application: labels.application, version: labels.version }, seconds);
}
