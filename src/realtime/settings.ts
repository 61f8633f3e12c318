// Realtime settings (DESIGN §17), read from the environment with the rest of the configuration.

export interface RealtimeSettings {
  /** How far back `Last-Event-ID` replays, seconds (APPBUILDER_REALTIME_RETENTION, default 300). */
  retentionSeconds: number;
  /** `: ping` interval, ms (APPBUILDER_REALTIME_PING_MS, default 25000). */
  pingMs: number;
  /** Topics per connection (APPBUILDER_REALTIME_MAX_SUBSCRIPTIONS, default 100). */
  maxSubscriptions: number;
  /** Open connections per end user (APPBUILDER_REALTIME_MAX_CONNECTIONS, default 10). */
  maxConnectionsPerUser: number;
  /** Open connections from one client address, IPv6 by /64, signed in or not (APPBUILDER_REALTIME_MAX_PER_ADDRESS, default 100). */
  maxPerAddress: number;
  /** Open connections to one application in this process (APPBUILDER_REALTIME_MAX_PER_APP, default 10000). */
  maxPerApplication: number;
  /** Bytes a connection may leave unsent before it is dropped as a slow consumer (APPBUILDER_REALTIME_MAX_BUFFER, default 1 MiB). */
  maxBufferedBytes: number;
  /** How often open connections' tokens are checked again for revocation, ms (APPBUILDER_REALTIME_REVALIDATE_MS, default 30000). */
  revalidateMs: number;
}

export const DEFAULT_REALTIME_SETTINGS: RealtimeSettings = {
  retentionSeconds: 300,
  pingMs: 25_000,
  maxSubscriptions: 100,
  maxConnectionsPerUser: 10,
  maxPerAddress: 100,
  maxPerApplication: 10_000,
  maxBufferedBytes: 1 << 20,
  revalidateMs: 30_000,
};

function positive(value: string | undefined, fallback: number): number {
  const n = value === undefined || value === '' ? NaN : Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

export function loadRealtimeSettings(env: NodeJS.ProcessEnv): RealtimeSettings {
  const d = DEFAULT_REALTIME_SETTINGS;
  return {
    retentionSeconds: positive(env.APPBUILDER_REALTIME_RETENTION, d.retentionSeconds),
    pingMs: positive(env.APPBUILDER_REALTIME_PING_MS, d.pingMs),
    maxSubscriptions: positive(env.APPBUILDER_REALTIME_MAX_SUBSCRIPTIONS, d.maxSubscriptions),
    maxConnectionsPerUser: positive(env.APPBUILDER_REALTIME_MAX_CONNECTIONS, d.maxConnectionsPerUser),
    maxPerAddress: positive(env.APPBUILDER_REALTIME_MAX_PER_ADDRESS, d.maxPerAddress),
    maxPerApplication: positive(env.APPBUILDER_REALTIME_MAX_PER_APP, d.maxPerApplication),
    maxBufferedBytes: positive(env.APPBUILDER_REALTIME_MAX_BUFFER, d.maxBufferedBytes),
    revalidateMs: positive(env.APPBUILDER_REALTIME_REVALIDATE_MS, d.revalidateMs),
  };
}
