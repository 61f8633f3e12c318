// Which variables and secrets a definition names (`env.NAME`, `secrets.NAME`, `env['NAME']`):
// publishing a version that names one its application does not have is refused (409, DESIGN §11).
import { collectExpressions } from '../definition/consistency/expression-sites.ts';
import type { AppDefinition } from '../definition/schema.ts';
import { compile, variableUse } from '../expressions/index.ts';
import { conflict, type ProblemDetail } from '../errors.ts';
import type { Db } from '../storage/db.ts';
import { withSecretTables, type ValueKind } from './tables.ts';

export interface ConfigReference {
  kind: ValueKind;
  name: string;
  /** JSON pointer of the first expression naming it. */
  path: string;
}

const VARIABLES: Record<string, ValueKind> = { env: 'variable', secrets: 'secret' };

export function configReferences(definition: AppDefinition): ConfigReference[] {
  const found = new Map<string, ConfigReference>();
  for (const site of collectExpressions(definition)) {
    const result = compile(site.source, { definition, scope: site.scope, modelId: site.model?.id ?? null });
    if (!result.ok) continue;
    for (const [variable, kind] of Object.entries(VARIABLES)) {
      for (const name of variableUse(result.compiled.ast, variable).members) {
        const key = `${kind}:${name}`;
        if (!found.has(key)) found.set(key, { kind, name, path: site.path });
      }
    }
  }
  return [...found.values()];
}

/** 409 naming every variable or secret the definition reads that neither the application nor its project has. */
export async function checkConfigReferences(db: Db, applicationId: string, definition: AppDefinition): Promise<void> {
  const wanted = configReferences(definition);
  if (wanted.length === 0) return;
  const rows = await withSecretTables(db.kysely)
    .selectFrom('appbuilder.config_values')
    .select(['kind', 'name'])
    .where((eb) =>
      eb.or([
        eb('application_id', '=', applicationId),
        eb('project_id', '=', eb.selectFrom('appbuilder.applications').select('project_id').where('id', '=', applicationId)),
      ]),
    )
    .execute();
  const set = new Set(rows.map((row) => `${row.kind}:${row.name}`));
  const missing = wanted.filter((ref) => !set.has(`${ref.kind}:${ref.name}`));
  if (missing.length === 0) return;
  const errors: ProblemDetail[] = missing.map((ref) => ({
    path: ref.path,
    message: `reads ${ref.kind === 'variable' ? 'env' : 'secrets'}.${ref.name}, which is not set: PUT …/${ref.kind === 'variable' ? 'variables' : 'secrets'}/${ref.name} on the application or its project`,
  }));
  const names = missing.map((ref) => `${ref.kind === 'variable' ? 'variable' : 'secret'} ${ref.name}`).join(', ');
  throw conflict(`The version reads configuration that is not set: ${names}.`, errors);
}
