import { sql, type Selectable } from 'kysely';
import type { Db, Executor } from '../storage/db.ts';
import type { BuilderTokensTable, BuildersTable } from '../storage/tables.ts';
import { conflict, notFound } from '../errors.ts';
import { uuidv7 } from '../tools/ids.ts';
import { jsonb, toIso } from '../storage/sql.ts';
import type { Role } from '../access/roles.ts';
import { hashBuilderToken, newBuilderToken } from '../access/builder-tokens.ts';
import { recordAuditIn } from '../access/audit.ts';

/** A person or client of a customer who builds and runs apps (DESIGN §10). */
export interface Builder {
  id: string;
  name: string;
  email: string;
  role: Role;
  projectIds: string[] | null;
  isActive: boolean;
  createdAt: string;
  updatedAt: string;
  lastActiveAt: string | null;
}

export interface BuilderToken {
  id: string;
  name: string;
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface BuilderInput {
  name: string;
  email: string;
  role: Role;
  projectIds?: string[] | null;
  isActive?: boolean;
}

/** 90 days, and at most a year (DESIGN §10). */
export const DEFAULT_TOKEN_SECONDS = 90 * 24 * 3600;
export const MAX_TOKEN_SECONDS = 365 * 24 * 3600;

function toBuilder(row: Selectable<BuildersTable>): Builder {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    role: row.role,
    projectIds: row.project_ids,
    isActive: row.is_active,
    createdAt: toIso(row.created_at)!,
    updatedAt: toIso(row.updated_at)!,
    lastActiveAt: toIso(row.last_active_at) ?? null,
  };
}

function toToken(row: Selectable<BuilderTokensTable>): BuilderToken {
  return {
    id: row.id,
    name: row.name,
    createdAt: toIso(row.created_at)!,
    expiresAt: toIso(row.expires_at)!,
    lastUsedAt: toIso(row.last_used_at) ?? null,
    revokedAt: toIso(row.revoked_at) ?? null,
  };
}

const isUniqueViolation = (error: unknown) => (error as { code?: string }).code === '23505';
const emailTaken = (email: string) => conflict(`A builder with the email ${email} already exists.`, [{ path: '/email', message: 'must be unique within the customer' }]);

export class BuilderService {
  constructor(private readonly db: Db) {}

  async create(customerId: string, input: BuilderInput): Promise<Builder> {
    return this.db.kysely.transaction().execute(async (trx) => {
      await this.checkProjects(trx, customerId, input.projectIds ?? null);
      try {
        const row = await trx
          .insertInto('appbuilder.builders')
          .values({
            id: uuidv7(),
            customer_id: customerId,
            name: input.name,
            email: input.email,
            role: input.role,
            project_ids: input.projectIds ? jsonb(input.projectIds) : null,
            is_active: input.isActive ?? true,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        await recordAuditIn(trx);
        return toBuilder(row);
      } catch (error) {
        throw isUniqueViolation(error) ? emailTaken(input.email) : error;
      }
    });
  }

  async list(customerId: string, limit: number, offset: number): Promise<{ items: Builder[]; total: number }> {
    const base = this.db.kysely.selectFrom('appbuilder.builders').where('customer_id', '=', customerId);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('id').limit(limit).offset(offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map(toBuilder), total: Number(count.total) };
  }

  async get(customerId: string, id: string): Promise<Builder> {
    return toBuilder(await this.findRow(this.db.kysely, customerId, id));
  }

  async update(customerId: string, id: string, patch: Partial<BuilderInput>): Promise<Builder> {
    return this.db.kysely.transaction().execute(async (trx) => {
      await this.findRow(trx, customerId, id);
      if (patch.projectIds !== undefined) await this.checkProjects(trx, customerId, patch.projectIds);
      try {
        const row = await trx
          .updateTable('appbuilder.builders')
          .set({
            ...(patch.name !== undefined ? { name: patch.name } : {}),
            ...(patch.email !== undefined ? { email: patch.email } : {}),
            ...(patch.role !== undefined ? { role: patch.role } : {}),
            ...(patch.projectIds !== undefined ? { project_ids: patch.projectIds === null ? null : jsonb(patch.projectIds) } : {}),
            ...(patch.isActive !== undefined ? { is_active: patch.isActive } : {}),
            updated_at: sql`now()`,
          })
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirstOrThrow();
        await recordAuditIn(trx);
        return toBuilder(row);
      } catch (error) {
        throw isUniqueViolation(error) && patch.email !== undefined ? emailTaken(patch.email) : error;
      }
    });
  }

  /** Deletes the builder and its tokens (refused from the next request on); versions and files keep its id. */
  async delete(customerId: string, id: string): Promise<void> {
    const result = await this.db.kysely.deleteFrom('appbuilder.builders').where('id', '=', id).where('customer_id', '=', customerId).executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) throw notFound(`Builder ${id} was not found.`, '/builderId');
  }

  /** A new token; its secret is in the answer only. */
  async createToken(customerId: string, builderId: string, input: { name?: string; expiresIn?: number }): Promise<BuilderToken & { token: string }> {
    await this.findRow(this.db.kysely, customerId, builderId);
    const token = newBuilderToken();
    const row = await this.db.kysely
      .insertInto('appbuilder.builder_tokens')
      .values({
        id: uuidv7(),
        builder_id: builderId,
        name: input.name ?? 'default',
        token_hash: hashBuilderToken(token),
        expires_at: sql<Date>`now() + make_interval(secs => ${input.expiresIn ?? DEFAULT_TOKEN_SECONDS})`,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { ...toToken(row), token };
  }

  async listTokens(customerId: string, builderId: string, limit: number, offset: number): Promise<{ items: BuilderToken[]; total: number }> {
    await this.findRow(this.db.kysely, customerId, builderId);
    const base = this.db.kysely.selectFrom('appbuilder.builder_tokens').where('builder_id', '=', builderId);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('id').limit(limit).offset(offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map(toToken), total: Number(count.total) };
  }

  /** Revokes a token: refused from the next request on. Revoking it again changes nothing. */
  async revokeToken(customerId: string, builderId: string, tokenId: string): Promise<void> {
    await this.findRow(this.db.kysely, customerId, builderId);
    const row = await this.db.kysely
      .updateTable('appbuilder.builder_tokens')
      .set({ revoked_at: sql`coalesce(revoked_at, now())` })
      .where('id', '=', tokenId)
      .where('builder_id', '=', builderId)
      .returning('id')
      .executeTakeFirst();
    if (!row) throw notFound(`Token ${tokenId} was not found.`, '/tokenId');
  }

  private async findRow(executor: Executor, customerId: string, id: string): Promise<Selectable<BuildersTable>> {
    const row = await executor.selectFrom('appbuilder.builders').selectAll().where('id', '=', id).where('customer_id', '=', customerId).executeTakeFirst();
    if (!row) throw notFound(`Builder ${id} was not found.`, '/builderId');
    return row;
  }

  /** Every project named must be the customer's (404 naming the first that is not). */
  private async checkProjects(executor: Executor, customerId: string, projectIds: string[] | null): Promise<void> {
    if (!projectIds || projectIds.length === 0) return;
    const rows = await executor.selectFrom('appbuilder.projects').select('id').where('customer_id', '=', customerId).where('id', 'in', projectIds).execute();
    const known = new Set(rows.map((r) => r.id));
    const index = projectIds.findIndex((p) => !known.has(p));
    if (index >= 0) throw notFound(`Project ${projectIds[index]} was not found.`, `/projectIds/${index}`);
  }
}
