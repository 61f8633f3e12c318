// The per-version OpenAPI of bounded relations and sparse fields (DESIGN §6): the `fields` query
// parameter, and the sub-collection route `GET /{resource}/{id}/{field}` of each to-many relationship.
import type { CompiledApp, CompiledModel } from '../compiled-app.ts';
import { subCollectionFields } from '../data/related.ts';
import { safeName, schemaRef, type JsonSchema } from './schemas.ts';

type PathItem = Record<string, unknown>;

/** `fields=title,deadline,user.name`. */
export function fieldsParameter(model: CompiledModel): JsonSchema {
  const relation = model.fields.find((f) => f.relation);
  const example = [model.fields.find((f) => !f.relation)?.name, relation && `${relation.name}.id`].filter(Boolean).join(',');
  return {
    name: 'fields',
    in: 'query',
    schema: { type: 'string' },
    ...(example ? { example } : {}),
    description:
      'Comma-separated members to answer (`id` always); the others are left out and not read. A relationship named alone stays ids; ' +
      '`rel.*` or `rel.field` expands it to the related record with those members. An unknown field, or one the caller may not read, is a 400 naming it.',
  };
}

/** `GET /{resource}/{id}/{field}` per to-many relationship: the whole related set, paged like a list. */
export function subCollectionPaths(
  app: CompiledApp,
  model: CompiledModel,
  listParameters: (model: CompiledModel) => JsonSchema[],
  security: unknown,
  errors: (...statuses: number[]) => Record<string, JsonSchema>,
): Record<string, PathItem> {
  const paths: Record<string, PathItem> = {};
  for (const field of subCollectionFields(model)) {
    const target = app.modelsById.get(field.relation!.targetModelId)!;
    const name = `${safeName(model.name)}${safeName(field.name[0].toUpperCase() + field.name.slice(1))}`;
    paths[`/${model.resource}/{id}/${field.name}`] = {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
      get: {
        operationId: `list${name}`,
        summary: `List the ${target.name} records of a ${model.name}'s ${field.name}`,
        description:
          `Every ${target.name} of \`${field.name}\`, paged like a list (records embedded in other answers hold at most the first ones by id). ` +
          `Under the ${target.name} read rule; 404 when the ${model.name} does not exist or the caller may not read it.`,
        tags: [model.name],
        security,
        parameters: listParameters(target),
        responses: {
          200: { description: `A page of ${target.name} records.`, content: { 'application/json': { schema: schemaRef(`${safeName(target.name)}Page`) } } },
          ...errors(400, 401, 404),
        },
      },
    };
  }
  return paths;
}
