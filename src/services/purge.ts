/**
 * Purge (DESIGN §3): migrations only expand, so a field removed from the definition
 * keeps its column. `POST …/purge {fieldIds}` drops those columns (or tables, for a
 * removed model) once no version can need them: not the current definition, not a
 * served version, not the deployed schema the next migration starts from. Runs in
 * the caller's transaction, after the application row is locked.
 */
import { conflict, Problem, type ProblemDetail } from '../errors.ts';
import type { AppDefinition } from '../definition/schema.ts';
import type { Executor } from '../storage/db.ts';
import { jsonb } from '../storage/sql.ts';
import { uuidv7 } from '../tools/ids.ts';
import { planPurge, runMigration, summarizeMigration } from '../compiler/schema/index.ts';

type Definition = Pick<AppDefinition, 'models'>;

function idsOf(def: Definition): Set<string> {
  return new Set(def.models.flatMap((m) => [m.id, ...m.fields.map((f) => f.id)]));
}

/** Drops what `fieldIds` stored; 409 naming each id still in use (and nothing dropped). Returns the summary lines. */
export async function purgeFields(trx: Executor, applicationId: string, current: AppDefinition, fieldIds: string[]): Promise<string[]> {
  const [served, deployed, history] = await Promise.all([
    trx
      .selectFrom('appbuilder.deployments as d')
      .innerJoin('appbuilder.application_versions as v', (join) =>
        join.onRef('v.application_id', '=', 'd.application_id').onRef('v.server_version', '=', 'd.server_version'),
      )
      .select(['d.server_version', 'v.scode'])
      .where('d.application_id', '=', applicationId)
      .where('d.state', '=', 'active')
      .execute(),
    trx.selectFrom('appbuilder.app_schemas').select(['server_version', 'scode']).where('application_id', '=', applicationId).executeTakeFirst(),
    // Newest first: the latest place an id was stored wins.
    trx.selectFrom('appbuilder.application_versions').select('scode').where('application_id', '=', applicationId).orderBy('id', 'desc').execute(),
  ]);

  const users: Array<{ what: string; ids: Set<string> }> = [
    { what: 'the current definition', ids: idsOf(current) },
    ...served.map((s) => ({ what: `the served version ${s.server_version}`, ids: idsOf(s.scode as unknown as Definition) })),
    ...(deployed ? [{ what: `the deployed schema (version ${deployed.server_version}, which the next migration starts from)`, ids: idsOf(deployed.scode as unknown as Definition) }] : []),
  ];
  const errors: ProblemDetail[] = [];
  fieldIds.forEach((id, i) => {
    const inUse = users.filter((u) => u.ids.has(id)).map((u) => u.what);
    if (inUse.length > 0) errors.push({ path: `/fieldIds/${i}`, message: `${id} is still used by ${inUse.join(', ')}` });
  });
  if (errors.length > 0) throw conflict('Only fields that no served version and no current definition use can be purged; nothing was dropped.', errors);

  let plan;
  try {
    plan = planPurge(current, applicationId, fieldIds, history.map((h) => h.scode as unknown as Definition));
  } catch (error) {
    if (error instanceof Problem) throw new Problem(error.status, error.message, error.errors.map((e) => ({ ...e, path: e.path.replace(/^\/ids\//, '/fieldIds/') })));
    throw error;
  }
  await runMigration(trx, plan);
  const lines = summarizeMigration(plan);
  if (plan.steps.length > 0) {
    await trx
      .insertInto('appbuilder.app_migrations')
      .values({
        id: uuidv7(),
        application_id: applicationId,
        server_version: deployed?.server_version ?? 'purge',
        statements: jsonb(plan.statements),
        summary: jsonb(lines.map((line) => `purge: ${line}`)),
      })
      .execute();
  }
  return lines;
}
