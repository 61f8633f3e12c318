import { sql } from 'kysely';
import type { Db } from '../storage/db.ts';
import { notFound } from '../errors.ts';
import { uuidv7 } from '../tools/ids.ts';
import { jsonb, toIso } from '../storage/sql.ts';
import type { ProjectsTable } from '../storage/tables.ts';
import type { Selectable } from 'kysely';
import { recordAuditIn } from '../access/audit.ts';
import { dropProjectAttachments } from './attachments.ts';

export interface Project {
  id: string;
  name: string;
  components: string[];
  createdAt: string;
  updatedAt: string;
}

export interface Page<T> {
  items: T[];
  total: number;
}

/** Drops an application's own data schema; set by the runtime, which owns those schemas. */
export type DropApplicationData = (applicationId: string, executor: Db['kysely']) => Promise<void>;

function toProject(row: Selectable<ProjectsTable>): Project {
  return {
    id: row.id,
    name: row.name,
    components: row.components,
    createdAt: toIso(row.created_at)!,
    updatedAt: toIso(row.updated_at)!,
  };
}

export class ProjectService {
  constructor(
    private readonly db: Db,
    private readonly dropApplicationData: DropApplicationData,
  ) {}

  async create(customerId: string, input: { name: string; components?: string[] }): Promise<Project> {
    const row = await this.db.kysely
      .insertInto('appbuilder.projects')
      .values({ id: uuidv7(), customer_id: customerId, name: input.name, components: jsonb(input.components ?? []) })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toProject(row);
  }

  /** `projectIds`: the caller's project scope (null: every project), applied in SQL so the total is exact. */
  async list(customerId: string, limit: number, offset: number, projectIds: string[] | null = null): Promise<Page<Project>> {
    if (projectIds !== null && projectIds.length === 0) return { items: [], total: 0 };
    let base = this.db.kysely.selectFrom('appbuilder.projects').where('customer_id', '=', customerId);
    if (projectIds !== null) base = base.where('id', 'in', projectIds);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('id').limit(limit).offset(offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map(toProject), total: Number(count.total) };
  }

  async get(customerId: string, id: string): Promise<Project> {
    const row = await this.db.kysely
      .selectFrom('appbuilder.projects')
      .selectAll()
      .where('id', '=', id)
      .where('customer_id', '=', customerId)
      .executeTakeFirst();
    if (!row) throw notFound(`Project ${id} was not found.`, '/projectId');
    return toProject(row);
  }

  async update(customerId: string, id: string, patch: { name?: string; components?: string[] }): Promise<Project> {
    const row = await this.db.kysely
      .updateTable('appbuilder.projects')
      .set({
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.components !== undefined ? { components: jsonb(patch.components) } : {}),
        updated_at: sql`now()`,
      })
      .where('id', '=', id)
      .where('customer_id', '=', customerId)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw notFound(`Project ${id} was not found.`, '/projectId');
    return toProject(row);
  }

  /** Deletes the project, its applications and their data in one transaction. */
  async delete(customerId: string, id: string): Promise<void> {
    await this.db.kysely.transaction().execute(async (trx) => {
      const project = await trx
        .selectFrom('appbuilder.projects')
        .select('id')
        .where('id', '=', id)
        .where('customer_id', '=', customerId)
        .forUpdate()
        .executeTakeFirst();
      if (!project) throw notFound(`Project ${id} was not found.`, '/projectId');
      const apps = await trx.selectFrom('appbuilder.applications').select('id').where('project_id', '=', id).execute();
      for (const app of apps) await this.dropApplicationData(app.id, trx);
      await dropProjectAttachments(trx, id);
      await trx.deleteFrom('appbuilder.projects').where('id', '=', id).execute();
      await recordAuditIn(trx);
    });
  }
}
