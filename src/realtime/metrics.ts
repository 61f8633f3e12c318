import { Counter, Gauge } from 'prom-client';

/**
 * Realtime's figures for /metrics (DESIGN §17, §19). Not registered here: the HTTP layer adds them
 * to the process's registry (src/api/metrics.ts), as it does the runtime's. The statements must
 * not grow with subscribers: one visibility statement per change and served version, a few outbox
 * reads per pass (`npm run bench:realtime` divides them by the changes it made).
 */
export const realtimeConnections = new Gauge({
  name: 'appbuilder_realtime_connections',
  help: 'Open realtime connections (SSE streams and WebSockets) of this process.',
  registers: [],
});

export const realtimeStatementsTotal = new Counter({
  name: 'appbuilder_realtime_statements_total',
  help: 'SQL statements realtime ran: kind visibility (who may read a change) or outbox (reading the committed changes).',
  labelNames: ['kind'] as const,
  registers: [],
});

export const realtimeChangesTotal = new Counter({
  name: 'appbuilder_realtime_changes_total',
  help: 'Changes judged for the subscribers of a served version.',
  registers: [],
});

export const realtimeSlowDroppedTotal = new Counter({
  name: 'appbuilder_realtime_slow_dropped_total',
  help: 'Connections dropped because they left too many bytes unsent.',
  registers: [],
});
