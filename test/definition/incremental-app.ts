// A large generated definition for the incremental-validation tests and `npm run bench:edits`:
// `n` models in all (at most 1000, the schema's bound): the to-do example's two plus models of 11
// primitive fields, each with an access rule reading its own fields and a parent/children
// relationship to the model before it (a chain).
import { todoScode } from '../support/examples.ts';

const PRIMITIVES = ['p_TEXT', 'p_NUMBER', 'p_BOOLEAN', 'p_DATE', 'p_DATE_TIME', 'p_TIME', 'p_STAR_RATING', 'p_LINK', 'p_PHONE_NUMBER', 'p_ADDRESS', 'p_CURRENCY_AMOUNT'];

export const modelIdOf = (i: number) => `urn:svc:model:entity${i}`;
export const fieldIdOf = (i: number, name: string) => `urn:svc:edge:entity${i}-${name}`;

function field(i: number, name: string, to: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: fieldIdOf(i, name), name, relationshipOwner: true, min: 0, max: 1, to, accessControl: { rules: [] }, ...extra };
}

export function largeScode(n: number): ReturnType<typeof todoScode> {
  const scode = todoScode();
  const count = n - scode.models.length;
  for (let i = 0; i < count; i++) {
    const fields = PRIMITIVES.map((to, k) => field(i, `f${k}`, to));
    if (i > 0) fields.push(field(i, 'parent', modelIdOf(i - 1), { relationshipOwner: false }));
    if (i < count - 1) fields.push(field(i, 'children', modelIdOf(i + 1), { max: null }));
    scode.models.push({
      id: modelIdOf(i),
      name: `Entity${i}`,
      fields,
      accessControl: { rules: [{ access: 'allow', criteria: `auth != null && record.f0 != '' && record.f2 == true` }], defaultAccess: 'deny' },
    });
  }
  return scode;
}
