// The audit trail (DESIGN §10): every management write (any method but GET and HEAD) by an
// authenticated caller is recorded with its actor, operationId, method, route path (the
// template, never the query string or ids of the URL), final status and request id.
// Where the change has a transaction (every new version, every job queued, deleting a project
// or an application, builders), the row is written inside it (`recordAuditIn`) with the
// route's success status, so the change and its record commit or vanish together. In `onSend`
// (after the handler, before the answer leaves) the same row is upserted with the final status:
// the same values for a committed change, the record of a refused or failed one (403, 404,
// 409, …), and the only write for changes without a transaction of their own.
// Writes made with management credentials on a generated application's own routes (its data,
// auth and trigger routes) are recorded too, with the application's id: noted when the
// credentials are checked (`noteAppWrite`) and written once the answer has left (`onResponse`),
// so the request does not wait for the row. End users' requests are never noted.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { Db, Executor } from '../storage/db.ts';
import { uuidv7 } from '../tools/ids.ts';
import { toIso } from '../storage/sql.ts';
import type { Actor } from './roles.ts';
import { currentAudit, type PendingAudit } from './actor-context.ts';

export interface AuditEvent {
  id: string;
  at: string;
  actor: Actor;
  operationId: string | null;
  method: string;
  path: string;
  status: number;
  requestId: string;
  /** The generated application whose own route was called; null for the management API's routes. */
  applicationId: string | null;
}

export interface AuditFilter {
  actorId?: string;
  operationId?: string;
  applicationId?: string;
  since?: string;
  limit: number;
  offset: number;
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A route whose method is not a read's but that changes nothing: not audited as a write. */
    changesNothing?: boolean;
  }
}
const pending = new WeakMap<FastifyRequest, PendingAudit>();

/** The audit row of this request (one per request), or null for reads and unauthenticated calls. */
export function pendingAuditOf(request: FastifyRequest): PendingAudit | null {
  // `changesNothing`: a POST that only reads, like explain (its request runs in a transaction rolled back).
  if (READS.has(request.method) || !request.principal || request.routeOptions.config.changesNothing) return null;
  let audit = pending.get(request);
  if (!audit) {
    const schema = request.routeOptions.schema as { operationId?: string; response?: Record<string, unknown> } | undefined;
    const success = Object.keys(schema?.response ?? {}).map(Number).filter((status) => status >= 200 && status < 300);
    audit = {
      id: uuidv7(),
      customerId: request.principal.customerId,
      actor: request.principal.actor,
      operationId: schema?.operationId ?? null,
      method: request.method,
      path: request.routeOptions.url ?? request.url.split('?')[0],
      requestId: request.id,
      successStatus: success.length > 0 ? Math.min(...success) : 200,
      written: false,
    };
    pending.set(request, audit);
  }
  return audit;
}

/**
 * Writes the current management write's audit row in `executor` (a transaction of the change),
 * with the status the route answers on success. Outside a management write: nothing.
 */
export async function recordAuditIn(executor: Executor): Promise<void> {
  const audit = currentAudit();
  if (!audit || audit.written) return;
  audit.written = true;
  await executor.insertInto('appbuilder.audit_events').values(rowOf(audit, audit.successStatus)).onConflict((oc) => oc.column('id').doNothing()).execute();
}

function rowOf(audit: PendingAudit, status: number) {
  return {
    id: audit.id,
    customer_id: audit.customerId,
    actor_type: audit.actor.type,
    actor_id: audit.actor.id,
    operation_id: audit.operationId,
    method: audit.method,
    path: audit.path,
    status,
    request_id: audit.requestId,
  };
}

/** A write with management credentials on a generated application's route, recorded once answered. */
export interface AppWriteAudit {
  customerId: string;
  actor: Actor;
  method: string;
  /** The route template below the apps' path (`/apps/:applicationId/api/v1.0.0/toDos/:id`), never the URL. */
  path: string;
  applicationId: string;
}

const appWrites = new WeakMap<FastifyRequest, AppWriteAudit>();

/** Whether `method` changes nothing (reads are not audited). */
export function isReadMethod(method: string): boolean {
  return READS.has(method);
}

/** Notes the audit row of a write made with management credentials on an app's route (reads: nothing). */
export function noteAppWrite(request: FastifyRequest, audit: AppWriteAudit): void {
  if (!READS.has(audit.method)) appWrites.set(request, audit);
}

/**
 * Registers, on the generated apps' scope, the writing of the rows `noteAppWrite` noted, with
 * the status answered. `onResponse` runs after the answer was sent: the caller never waits for
 * the row; a failure to write it is logged.
 */
export function recordAppWrites(app: FastifyInstance, db: Db): void {
  // A callback hook: a read (no audit row) costs no promise (issue 43); a write's row is awaited as before.
  app.addHook('onResponse', (request, reply, done) => {
    const audit = appWrites.get(request);
    if (!audit) return done();
    appWrites.delete(request);
    void write(request, reply, audit).then(() => done());
  });
  async function write(request: FastifyRequest, reply: FastifyReply, audit: AppWriteAudit): Promise<void> {
    try {
      await db.kysely
        .insertInto('appbuilder.audit_events')
        .values({
          id: uuidv7(),
          customer_id: audit.customerId,
          actor_type: audit.actor.type,
          actor_id: audit.actor.id,
          operation_id: null,
          method: audit.method,
          path: audit.path,
          status: reply.statusCode,
          request_id: request.id,
          application_id: audit.applicationId,
        })
        .execute();
    } catch (error) {
      request.log.error({ err: error, applicationId: audit.applicationId }, 'could not write the audit row of an app write');
    }
  }
}

/** Registers the recorder on the management scope `app` (after authentication). */
export function recordManagementWrites(app: FastifyInstance, db: Db): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const audit = pendingAuditOf(request);
    if (!audit) return payload;
    const status = reply.statusCode;
    // Always: the transaction that wrote the row may have rolled back (or been retried).
    await db.kysely
      .insertInto('appbuilder.audit_events')
      .values(rowOf(audit, status))
      .onConflict((oc) => oc.column('id').doUpdateSet({ status }))
      .execute();
    return payload;
  });
}

export class AuditService {
  constructor(private readonly db: Db) {}

  /** The customer's events, newest first, with the exact total of the filtered set. */
  async list(customerId: string, filter: AuditFilter): Promise<{ items: AuditEvent[]; total: number }> {
    let base = this.db.kysely.selectFrom('appbuilder.audit_events').where('customer_id', '=', customerId);
    if (filter.actorId !== undefined) base = base.where('actor_id', '=', filter.actorId);
    if (filter.operationId !== undefined) base = base.where('operation_id', '=', filter.operationId);
    if (filter.applicationId !== undefined) base = base.where('application_id', '=', filter.applicationId);
    if (filter.since !== undefined) base = base.where('at', '>=', sql<Date>`cast(${filter.since} as timestamptz)`);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('id', 'desc').limit(filter.limit).offset(filter.offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return {
      items: rows.map((row) => ({
        id: row.id,
        at: toIso(row.at)!,
        actor: { type: row.actor_type, id: row.actor_id },
        operationId: row.operation_id,
        method: row.method,
        path: row.path,
        status: row.status,
        requestId: row.request_id,
        applicationId: row.application_id,
      })),
      total: Number(count.total),
    };
  }
}
