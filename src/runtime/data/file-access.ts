// Who may fetch a generated app's stored file (DESIGN §6, "Files"): a caller who may read at
// least one record that references its key, under that model's read rule and the field's own
// rule, or the end user who uploaded it; administrators every one. One SQL condition over the
// `app_files` row (aliased `app_file`: files/app-files.ts), so the check is one statement.
import { sql, type RawBuilder } from 'kysely';
import { ident } from '../../storage/sql.ts';
import { bypassesRules, type Caller } from '../caller.ts';
import type { CompiledApp } from '../compiled-app.ts';
import { col, tableOf } from './columns.ts';
import { isFileType } from './file-urls.ts';
import { accessCondition, fieldVisibility, type RuleContext } from './rule-sql.ts';

const KEY = sql.raw('app_file.key');

export function fileReadCondition(app: CompiledApp, caller: Caller, ctx: RuleContext): RawBuilder<unknown> {
  if (bypassesRules(caller)) return sql`true`;
  const grants: RawBuilder<unknown>[] = [];
  if (caller.kind === 'user') grants.push(sql`app_file.uploaded_by = cast(${String(caller.user.id)} as uuid)`);
  let aliases = 0;
  for (const model of app.models) {
    const fields = model.fields.filter((f) => isFileType(f.to) && f.column !== null && !f.relation);
    if (fields.length === 0) continue;
    const alias = `file_ref${++aliases}`;
    const rule = accessCondition(app, model, ctx, alias);
    if (rule.kind === 'none') continue;
    const visibility = fieldVisibility(app, model, ctx);
    const references: RawBuilder<unknown>[] = [];
    for (const field of fields) {
      const access = visibility.get(field.name) ?? { kind: 'visible' };
      if (access.kind === 'hidden') continue;
      const column = col(alias, field.column!);
      const reference = field.many ? sql`${KEY} = any(${column})` : sql`${column} = ${KEY}`;
      references.push(access.kind === 'row' ? sql`(${reference} and ${access.condition(alias)})` : reference);
    }
    if (references.length === 0) continue;
    const referenced = sql.join(references, sql` or `);
    const where = rule.kind === 'where' ? sql`(${referenced}) and (${rule.sql})` : referenced;
    grants.push(sql`exists (select 1 from ${tableOf(app, model)} ${ident(alias)} where ${where})`);
  }
  return grants.length > 0 ? sql.join(grants, sql` or `) : sql`false`;
}
