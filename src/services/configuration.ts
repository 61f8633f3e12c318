// Variables (plain) and secrets (sealed) of applications and projects (DESIGN §11). A project's
// values are defaults every application of it inherits; an application's own value wins. One
// name is a variable or a secret, never both, across a project and its applications (409).
// No answer of this service ever carries a secret's value. Every write is one transaction and
// sends a notice (secrets/app-values.ts) so every process reads the new value at once.
import { sql, type Kysely } from 'kysely';
import type { Actor } from '../access/roles.ts';
import { conflict, notFound } from '../errors.ts';
import { notifyConfigChange, type AppValuesCache } from '../secrets/app-values.ts';
import { DataKeys, type Owner, type OwnerKind } from '../secrets/data-keys.ts';
import { open, seal, valueAad } from '../secrets/envelope.ts';
import { checkName, checkValue, checkVariableName } from '../secrets/names.ts';
import { withSecretTables, type ConfigValuesTable, type SecretsExecutor, type ValueKind } from '../secrets/tables.ts';
import type { Db } from '../storage/db.ts';
import type { ControlPlane } from '../storage/tables.ts';
import { jsonb, toIso } from '../storage/sql.ts';
import { uuidv7 } from '../tools/ids.ts';
import type { Selectable } from 'kysely';

export interface Variable {
  name: string;
  value: string;
  updatedAt: string;
  updatedBy: Actor;
}

/** What is shown of a secret: never its value. */
export interface SecretInfo {
  name: string;
  version: number;
  createdAt: string;
  updatedAt: string;
  updatedBy: Actor;
}

type Row = Selectable<ConfigValuesTable>;

const KIND_WORD: Record<ValueKind, string> = { variable: 'variable', secret: 'secret' };

function variableOf(row: Row): Variable {
  return { name: row.name, value: row.value!, updatedAt: toIso(row.updated_at)!, updatedBy: row.updated_by };
}

function secretOf(row: Row): SecretInfo {
  return { name: row.name, version: row.version, createdAt: toIso(row.created_at)!, updatedAt: toIso(row.updated_at)!, updatedBy: row.updated_by };
}

export function viewOf(kind: ValueKind, row: Row): Variable | SecretInfo {
  return kind === 'variable' ? variableOf(row) : secretOf(row);
}

interface OwnerRow extends Owner {
  customerId: string;
  /** The project of an application (for inherited names), or the project itself. */
  projectId: string;
}

export class ConfigurationService {
  private readonly dataKeys: DataKeys;

  constructor(
    private readonly db: Db,
    masterKey: Buffer,
    /** This process's cache, forgotten at once after a write (other processes hear the notice). */
    private readonly cache?: AppValuesCache,
  ) {
    this.dataKeys = new DataKeys(db, masterKey);
  }

  async list(customerId: string, owner: Owner, kind: ValueKind, limit: number, offset: number): Promise<{ items: Row[]; total: number }> {
    await this.owner(withSecretTables(this.db.kysely), customerId, owner);
    const base = withSecretTables(this.db.kysely).selectFrom('appbuilder.config_values').where('owner_id', '=', owner.id).where('kind', '=', kind);
    const [items, count] = await Promise.all([
      base.selectAll().orderBy('name').limit(limit).offset(offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return { items, total: Number(count.total) };
  }

  async get(customerId: string, owner: Owner, kind: ValueKind, name: string): Promise<Row> {
    checkName(name);
    const db = withSecretTables(this.db.kysely);
    await this.owner(db, customerId, owner);
    const row = await db.selectFrom('appbuilder.config_values').selectAll().where('owner_id', '=', owner.id).where('name', '=', name).where('kind', '=', kind).executeTakeFirst();
    if (!row) throw notFound(`The ${owner.kind} has no ${KIND_WORD[kind]} ${name}.`, '/name');
    return row;
  }

  /**
   * Creates or replaces a value; `created` tells which (201 or 200). `within`: a transaction of the
   * caller's that the write joins (an assistant proposal applies its variables with its change).
   */
  async put(
    customerId: string,
    owner: Owner,
    kind: ValueKind,
    name: string,
    value: string,
    actor: Actor,
    within?: Kysely<ControlPlane>,
  ): Promise<{ created: boolean; row: Row }> {
    checkName(name);
    if (kind === 'variable') checkVariableName(name);
    checkValue(value);
    const write = async (trx: Kysely<ControlPlane>) => {
      const db = withSecretTables(trx);
      const found = await this.owner(db, customerId, owner, true);
      await this.refuseOtherKind(db, found, kind, name);
      // In the transaction: a refused write leaves no data key behind either.
      const dataKey = kind === 'secret' ? await this.dataKeys.key(owner, trx) : null;
      const existing = await db.selectFrom('appbuilder.config_values').selectAll().where('owner_id', '=', owner.id).where('name', '=', name).executeTakeFirst();
      const version = existing ? existing.version + 1 : 1;
      const stored = dataKey ? { value: null, sealed_value: seal(value, dataKey, valueAad(owner.id, name, version)) } : { value, sealed_value: null };
      let row: Row;
      if (existing) {
        row = await db
          .updateTable('appbuilder.config_values')
          .set({ ...stored, version, updated_at: sql`now()`, updated_by: jsonb(actor) })
          .where('id', '=', existing.id)
          .returningAll()
          .executeTakeFirstOrThrow();
      } else {
        row = await db
          .insertInto('appbuilder.config_values')
          .values({
            id: uuidv7(),
            customer_id: customerId,
            owner_id: owner.id,
            project_id: owner.kind === 'project' ? owner.id : null,
            application_id: owner.kind === 'application' ? owner.id : null,
            kind,
            name,
            ...stored,
            version,
            updated_by: jsonb(actor),
          })
          .returningAll()
          .executeTakeFirstOrThrow();
      }
      await notifyConfigChange(trx, owner.kind, owner.id);
      return { created: !existing, row };
    };
    const result = within ? await write(within) : await this.db.kysely.transaction().execute(write);
    this.forget(owner);
    return result;
  }

  /** A secret's value, for the service's own outbound calls (a project's Figma token); never part of an answer. */
  async secretValue(customerId: string, owner: Owner, name: string): Promise<string> {
    const row = await this.get(customerId, owner, 'secret', name);
    const key = await this.dataKeys.key(owner);
    return open(row.sealed_value!, key, valueAad(owner.id, name, row.version)).toString('utf8');
  }

  async delete(customerId: string, owner: Owner, kind: ValueKind, name: string): Promise<void> {
    checkName(name);
    await this.db.kysely.transaction().execute(async (trx) => {
      const db = withSecretTables(trx);
      await this.owner(db, customerId, owner, true);
      const gone = await db.deleteFrom('appbuilder.config_values').where('owner_id', '=', owner.id).where('name', '=', name).where('kind', '=', kind).executeTakeFirst();
      if (Number(gone.numDeletedRows) === 0) throw notFound(`The ${owner.kind} has no ${KIND_WORD[kind]} ${name}.`, '/name');
      await notifyConfigChange(trx, owner.kind, owner.id);
    });
    this.forget(owner);
  }

  private forget(owner: Owner): void {
    this.cache?.noticed(`${owner.kind}:${owner.id}`);
  }

  /** The owner within the customer (404 otherwise), locked for a write so names are checked and set under one lock. */
  private async owner(db: SecretsExecutor, customerId: string, owner: Owner, lock = false): Promise<OwnerRow> {
    if (owner.kind === 'application') {
      let query = db.selectFrom('appbuilder.applications').select(['id', 'project_id']).where('id', '=', owner.id).where('customer_id', '=', customerId);
      if (lock) query = query.forUpdate();
      const row = await query.executeTakeFirst();
      if (!row) throw notFound(`Application ${owner.id} was not found.`, '/applicationId');
      return { ...owner, customerId, projectId: row.project_id };
    }
    let query = db.selectFrom('appbuilder.projects').select('id').where('id', '=', owner.id).where('customer_id', '=', customerId);
    if (lock) query = query.forUpdate();
    if (!(await query.executeTakeFirst())) throw notFound(`Project ${owner.id} was not found.`, '/projectId');
    return { ...owner, customerId, projectId: owner.id };
  }

  /** 409 when the name is the other kind here, in the application's project, or (for a project) in one of its applications. */
  private async refuseOtherKind(db: SecretsExecutor, owner: OwnerRow, kind: ValueKind, name: string): Promise<void> {
    const other: ValueKind = kind === 'variable' ? 'secret' : 'variable';
    const clash = await db
      .selectFrom('appbuilder.config_values as v')
      .select(['v.owner_id', 'v.project_id'])
      .where('v.name', '=', name)
      .where('v.kind', '=', other)
      .where((eb) =>
        owner.kind === 'application'
          ? eb.or([eb('v.owner_id', '=', owner.id), eb('v.project_id', '=', owner.projectId)])
          : eb.or([
              eb('v.owner_id', '=', owner.id),
              eb('v.application_id', 'in', eb.selectFrom('appbuilder.applications').select('id').where('project_id', '=', owner.id)),
            ]),
      )
      .executeTakeFirst();
    if (!clash) return;
    const where = clash.owner_id === owner.id ? `this ${owner.kind}` : clash.project_id ? 'its project' : `application ${clash.owner_id} of this project`;
    throw conflict(`${name} is already a ${KIND_WORD[other]} of ${where}; one name is a variable or a secret, not both.`, [
      { path: '/name', message: `is a ${KIND_WORD[other]} of ${where}` },
    ]);
  }
}

export type { Owner, OwnerKind, ValueKind };
