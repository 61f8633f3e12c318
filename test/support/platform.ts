import { loadConfig, type Config } from '../../src/config.ts';
import { startPlatform, type Platform } from '../../src/platform.ts';
import type { Driver } from '../../src/storage/db.ts';
import { createTestDatabase, type TestDatabase } from './databases.ts';

export const BOOTSTRAP = { id: 'ak_bootstrap_admin', secret: 'sk_bootstrap_secret_for_tests_only' };

/**
 * Tests send many requests from 127.0.0.1 in a few seconds: rate limits high enough never to
 * refuse them, yet on, so the counting runs (a test of a limit sets it lower through `overrides`).
 */
export const GENEROUS_APP_LIMITS = { APPBUILDER_APP_RATE_LIMIT: '1000000', APPBUILDER_AUTH_RATE_LIMIT: '100000' };

export interface TestPlatform {
  platform: Platform;
  database: TestDatabase;
  baseUrl: string;
  config: Config;
  close(): Promise<void>;
}

/** A real service on a real port over a fresh database, with the bootstrap administrator. */
export async function startTestPlatform(
  driver: Driver,
  overrides: Partial<Config> = {},
  logStream?: NodeJS.WritableStream,
): Promise<TestPlatform> {
  const database = await createTestDatabase(driver, { statementTimeoutMs: overrides.statementTimeoutMs });
  const config = loadConfig(
    { ...process.env, APPBUILDER_TOKEN_RATE_LIMIT: '1000', ...GENEROUS_APP_LIMITS },
    { bootstrapClient: BOOTSTRAP, port: 0, host: '127.0.0.1', ...overrides },
  );
  const platform = await startPlatform(config, { db: database.db, logger: logStream ? { level: 'debug', stream: logStream } : false });
  const address = await platform.server.listen({ port: 0, host: '127.0.0.1' });
  return {
    platform,
    database,
    baseUrl: address,
    config,
    close: async () => {
      await platform.close();
      await database.drop();
    },
  };
}
