// The per-version OpenAPI of the query engine's reads: the `search` parameter of lists and
// sub-collections, and `GET /{resource}/aggregate` of each model with its answer's schema.
import type { CompiledApp, CompiledModel } from '../compiled-app.ts';
import { isSearchText } from '../../compiler/schema/model-indexes.ts';
import { safeName, schemaRef, type JsonSchema } from './schemas.ts';

type PathItem = Record<string, unknown>;

/** `search=`: full-text over the readable text fields. */
export function searchParameter(model: CompiledModel): JsonSchema {
  const text = model.fields.filter(isSearchText).map((f) => f.name);
  return {
    name: 'search',
    in: 'query',
    schema: { type: 'string', maxLength: 500 },
    example: 'milk -cow',
    description:
      `Full-text search (PostgreSQL, web search syntax: words, "quoted phrases", \`or\`, \`-word\`) over the text fields the caller may read` +
      `${text.length > 0 ? ` (${text.join(', ')})` : ' (this model has none: nothing matches)'}, in the language of the app variable SEARCH_LANGUAGE (default \`simple\`). ` +
      'Results are ordered by relevance unless `sort` is given; `sort=relevance,…` puts relevance first explicitly.',
  };
}

function aggregateParameters(model: CompiledModel, listParameters: JsonSchema[]): JsonSchema[] {
  const numeric = model.fields.find((f) => f.column && !f.many && !f.relation && ['p_NUMBER', 'p_STAR_RATING'].includes(f.to))?.name;
  const grouped = model.fields.find((f) => f.column && !f.many && f.enum)?.name ?? model.fields.find((f) => f.relation?.storage.kind === 'ownColumn')?.name;
  const shared = listParameters.filter((p) => ['filter', 'search', 'offset', 'limit'].includes(String(p.name)));
  return [
    {
      name: 'groupBy',
      in: 'query',
      schema: { type: 'string' },
      ...(grouped ? { example: grouped } : {}),
      description: 'Comma-separated fields (single values: primitives, to-one relationships as ids, `id`, `createdAt`, `updatedAt`) whose values make a group; without it, one item over every readable row. A field the caller may not read on every row is a 400 naming it.',
    },
    {
      name: 'metrics',
      in: 'query',
      schema: { type: 'string', default: 'count' },
      example: numeric ? `count,sum(${numeric}),avg(${numeric})` : 'count',
      description: 'Comma-separated metrics: `count`, `count(f)` (non-null values), `countDistinct(f)`, `sum(f)` and `avg(f)` (number fields), `min(f)` and `max(f)` (text, number, date and time fields). Each is a member of every item, named as written.',
    },
    { name: 'sort', in: 'query', schema: { type: 'string' }, example: '-count', description: 'Comma-separated metrics (as written) and grouped fields, `-` for descending; the grouped fields close the order.' },
    ...shared.map((p) => (p.name === 'limit' ? { ...p, description: 'Groups per page; 0 answers the number of groups alone.' } : p.name === 'offset' ? { ...p, description: 'Groups to skip.' } : p)),
  ];
}

/** `GET /{resource}/aggregate` for every model, and `{Model}Aggregate`, the answer. */
export function addAggregatePaths(
  app: CompiledApp,
  paths: Record<string, PathItem>,
  schemas: Record<string, JsonSchema>,
  listParameters: (model: CompiledModel) => JsonSchema[],
  security: unknown,
  errors: (...statuses: number[]) => Record<string, JsonSchema>,
): void {
  for (const model of app.models) {
    const name = safeName(model.name);
    schemas[`${name}Aggregate`] = {
      type: 'object',
      properties: {
        items: {
          type: 'array',
          items: {
            type: 'object',
            properties: { group: { type: 'object', description: 'The grouped fields and their values (empty without groupBy).', additionalProperties: true } },
            required: ['group'],
            additionalProperties: { type: ['number', 'string', 'null'], description: 'One member per metric, named as written (`count`, `sum(total)`).' },
          },
        },
        total: { type: 'integer', description: 'The number of groups.' },
        offset: { type: 'integer' },
      },
      required: ['items', 'total', 'offset'],
    };
    paths[`/${model.resource}/aggregate`] = {
      get: {
        operationId: `aggregate${name}`,
        summary: `Count and measure ${model.name} records by group`,
        description: `Aggregates over the ${model.name} records the caller may read (the read rule, then \`filter\` and \`search\`), grouped in the database, a page of groups at a time.`,
        tags: [model.name],
        security,
        parameters: aggregateParameters(model, listParameters(model)),
        responses: { 200: { description: `A page of groups of ${model.name} records.`, content: { 'application/json': { schema: schemaRef(`${name}Aggregate`) } } }, ...errors(400, 401) },
      },
    };
  }
}
