import { Type, type TSchema } from '@sinclair/typebox';

/** Schemas shared by the management routes (validation, serialization and OpenAPI). */

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    errors: Type.Array(Type.Object({ path: Type.String(), message: Type.String() })),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details (application/problem+json).' },
);

export const PageQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 20 }),
  offset: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 }),
});

export function ListEnvelope<T extends TSchema>(item: T) {
  return Type.Object({ items: Type.Array(item), metadata: Type.Object({ total: Type.Integer() }) });
}

export const Uuid = Type.String({ format: 'uuid' });
export const DateTime = Type.String({ format: 'date-time' });

/** Error responses every authenticated operation can give. */
export function problemResponses(...statuses: number[]): Record<number, typeof ProblemSchema> {
  const out: Record<number, typeof ProblemSchema> = {};
  for (const status of [400, 401, ...statuses]) out[status] = ProblemSchema;
  return out;
}
