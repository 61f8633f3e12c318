import { loadConfig } from '../config.ts';
import { roleNeedsPostgres, startPlatform, type Role } from '../platform.ts';
import { embeddedFsync } from '../storage/pglite.ts';
import { createFirstRunClient, firstRunMessage } from './first-run.ts';

const ROLES: readonly Role[] = ['all', 'api', 'runtime', 'worker'];

export async function serveCommand(options: { port?: number; host?: string; role: string }): Promise<void> {
  const config = loadConfig(process.env, {
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.host ? { host: options.host } : {}),
  });
  if (!ROLES.includes(options.role as Role)) throw new Error(`--role is one of ${ROLES.join(', ')}, not '${options.role}'.`);
  const role = options.role as Role;
  // Refused before the embedded store is opened (and locked) for nothing.
  if (role !== 'all' && !config.databaseUrl) throw new Error(roleNeedsPostgres(role));
  const platform = await startPlatform(config, { logger: { level: config.logLevel }, role });
  const store = config.databaseUrl
    ? 'PostgreSQL (DATABASE_URL)'
    : `embedded PGlite at ${config.dataDir} (${embeddedFsync() ? 'fsync on: commits survive a power loss' : 'APPBUILDER_EMBEDDED_FSYNC=off: a power loss may lose acknowledged writes; tests and benches only'})`;
  if (role === 'worker') {
    // A worker only takes jobs: it opens no port.
    process.stdout.write(`appbuilder worker taking jobs (no HTTP)\n  store:    ${store}\n`);
  } else {
    // Before listening: nobody can call in before the first administrator exists.
    const firstRun = role === 'runtime' ? null : await createFirstRunClient(platform.services, config);
    const address = await platform.server.listen({ port: config.port, host: config.host });
    const base = (config.publicUrl ?? address.replace('0.0.0.0', 'localhost').replace('[::]', 'localhost')).replace(/\/$/, '');
    if (role === 'runtime') {
      process.stdout.write(`appbuilder runtime listening on ${base}${config.appsPath} (generated apps only; sends jobs, a worker takes them)\n  store:    ${store}\n`);
    } else {
      process.stdout.write(
        `appbuilder listening on ${base}${config.basePath}${role === 'all' ? '' : ` (role ${role}: management API only; sends jobs, a worker takes them)`}\n` +
          `  store:    ${store}\n  Console:  ${base}/console (sign in with an API key and secret)\n  API docs: ${base}${config.basePath}/docs (management API)\n  OpenAPI:  ${base}${config.basePath}/openapi.json\n`,
      );
    }
    if (firstRun) process.stdout.write(firstRunMessage(firstRun, base, config.basePath));
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    platform.server.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => process.exit(1), 15_000);
    timer.unref();
    await platform.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
