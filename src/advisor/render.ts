// Residuals (what partial evaluation leaves of a rule) written back as CEL, for people to read:
// the access matrix's `when` and explain's per-row checks. A value equal to `authId` (the
// stand-in id of a signed-in caller) is written `auth.id`.
import type { Residual, ResidualOperand, ResidualValue } from '../expressions/index.ts';

function valueText(value: ResidualValue, authId: string | null): string {
  if (authId !== null && value === authId) return 'auth.id';
  if (value === null) return 'null';
  if (value instanceof Date) return `timestamp('${value.toISOString()}')`;
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (Array.isArray(value)) return `[${value.map((v) => valueText(v, authId)).join(', ')}]`;
  if (typeof value === 'object') {
    return `{${Object.entries(value).map(([k, v]) => `'${k}': ${valueText(v, authId)}`).join(', ')}}`;
  }
  return String(value);
}

function operandText(o: ResidualOperand, authId: string | null): string {
  if (o.kind === 'field') return `record.${o.name}`;
  if (o.kind === 'value') return valueText(o.value, authId);
  return `size(${operandText(o.target, authId)})`;
}

/** `r` as a CEL expression; `and` inside `or` (and `not` of a combination) get parentheses. */
export function residualText(r: Residual, authId: string | null = null, parent: 'and' | 'or' | 'not' | null = null): string {
  switch (r.kind) {
    case 'const':
      return String(r.value);
    case 'and':
    case 'or': {
      const text = r.items.map((item) => residualText(item, authId, r.kind)).join(r.kind === 'and' ? ' && ' : ' || ');
      return parent !== null && parent !== r.kind ? `(${text})` : text;
    }
    case 'not':
      return `!${residualText(r.item, authId, 'not')}`;
    case 'compare':
      return `${operandText(r.left, authId)} ${r.op} ${operandText(r.right, authId)}`;
    case 'in':
      return `${operandText(r.item, authId)} in ${operandText(r.list, authId)}`;
    case 'call':
      return `${operandText(r.target, authId)}.${r.name}(${operandText(r.args[0], authId)})`;
  }
}

/** The record fields a residual reads, in order of appearance. */
export function residualFields(r: Residual, out: string[] = []): string[] {
  const operand = (o: ResidualOperand): void => {
    if (o.kind === 'field' && !out.includes(o.name)) out.push(o.name);
    if (o.kind === 'call') operand(o.target);
  };
  switch (r.kind) {
    case 'const':
      break;
    case 'and':
    case 'or':
      for (const item of r.items) residualFields(item, out);
      break;
    case 'not':
      residualFields(r.item, out);
      break;
    case 'compare':
      operand(r.left);
      operand(r.right);
      break;
    case 'in':
      operand(r.item);
      operand(r.list);
      break;
    case 'call':
      operand(r.target);
      operand(r.args[0]);
      break;
  }
  return out;
}
