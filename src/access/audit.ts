// The audit trail (DESIGN §10): every management write (any method but GET and HEAD) by an
// authenticated caller is recorded with its actor, operationId, method, route path (the
// template, never the query string or ids of the URL), final status and request id. The row is
// written in `onSend`, after the handler's transaction committed and before the answer leaves,
// so a client never sees an answer whose audit row is missing; a refused call (403, 404, 409)
// is recorded with its status too.
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../storage/db.ts';
import { uuidv7 } from '../tools/ids.ts';
import { toIso } from '../storage/sql.ts';
import type { Actor } from './roles.ts';

export interface AuditEvent {
  id: string;
  at: string;
  actor: Actor;
  operationId: string | null;
  method: string;
  path: string;
  status: number;
  requestId: string;
}

export interface AuditFilter {
  actorId?: string;
  operationId?: string;
  since?: string;
  limit: number;
  offset: number;
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Registers the recorder on the management scope `app` (after authentication). */
export function recordManagementWrites(app: FastifyInstance, audit: AuditService): void {
  app.addHook('onSend', async (request, reply, payload) => {
    // An unauthenticated call has no actor (and no customer) to record.
    if (READS.has(request.method) || !request.principal) return payload;
    const { principal } = request;
    const schema = request.routeOptions.schema as { operationId?: string } | undefined;
    await audit.record(principal.customerId, {
      actor: principal.actor,
      operationId: schema?.operationId ?? null,
      method: request.method,
      path: request.routeOptions.url ?? request.url.split('?')[0],
      status: reply.statusCode,
      requestId: request.id,
    });
    return payload;
  });
}

export class AuditService {
  constructor(private readonly db: Db) {}

  async record(customerId: string, event: Omit<AuditEvent, 'id' | 'at'>): Promise<void> {
    await this.db.kysely
      .insertInto('appbuilder.audit_events')
      .values({
        id: uuidv7(),
        customer_id: customerId,
        actor_type: event.actor.type,
        actor_id: event.actor.id,
        operation_id: event.operationId,
        method: event.method,
        path: event.path,
        status: event.status,
        request_id: event.requestId,
      })
      .execute();
  }

  /** The customer's events, newest first, with the exact total of the filtered set. */
  async list(customerId: string, filter: AuditFilter): Promise<{ items: AuditEvent[]; total: number }> {
    let base = this.db.kysely.selectFrom('appbuilder.audit_events').where('customer_id', '=', customerId);
    if (filter.actorId !== undefined) base = base.where('actor_id', '=', filter.actorId);
    if (filter.operationId !== undefined) base = base.where('operation_id', '=', filter.operationId);
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
      })),
      total: Number(count.total),
    };
  }
}
