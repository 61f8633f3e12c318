/**
 * An API document's operations, against the app the specification makes. The generated API
 * already lists, creates, reads, updates and deletes every model's records, so an operation
 * that does one of those on a model (`GET /pets/{petId}`, `PUT /Accounts`, `GET
 * /api/v2/ability/{id}/`) is mapped onto the generated route that does it, said in a warning
 * (`GET /pets/{petId}` → the generated `GET /pets/{id}`). Any other operation is a warning too:
 * no route is made that could only answer "not implemented".
 */
import type { AppDefinition } from '../definition/schema.ts';
import { resourceName } from '../definition/naming.ts';
import type { Merged, SpecWarning } from './merge.ts';
import { modelName, wordsOf } from './names.ts';

type Operation = Merged['actions'][number];

/** Path segments that only version or prefix an API: `/api`, `/v2`, `/rest`. */
const PREFIX = /^(api|rest|v\d+(\.\d+)*|latest|public)$/i;
/** A query the generated list answers with a filter: `/pet/findByStatus`, `/users/search`. */
const FINDER = /^(find(By\w*)?|search|query|filter|lookup)$/i;

interface Mapped {
  model: string;
  routes: string[];
  note?: string;
}

const isParam = (segment: string) => /^\{[^}]*\}$/.test(segment) || segment.startsWith(':');

/** The model a path segment names (`pets`, `Accounts`, `egg-group`, `pet`), if it is one of the app's. */
function modelOfSegment(segment: string, models: Map<string, string>): string | undefined {
  const name = modelName(segment.replace(/\.(json|xml)$/i, ''));
  return models.get(name.toLowerCase());
}

/** `model` when the segment names it in fewer words: `move-ailment` for MoveMetaAilment (first and last words alike). */
function namedLike(segment: string, model: string | undefined): string | undefined {
  if (!model) return undefined;
  const said = wordsOf(modelName(segment)).map((w) => w.toLowerCase());
  const words = wordsOf(model).map((w) => w.toLowerCase());
  if (said.length === 0 || said[0] !== words[0] || said[said.length - 1] !== words[words.length - 1]) return undefined;
  let at = 0;
  for (const word of words) if (word === said[at]) at += 1;
  return at === said.length ? model : undefined;
}

/** Which generated routes do what the operation does, if it is a create, read, update or delete of a model. */
function mapOperation(op: Operation, models: Map<string, string>): Mapped | undefined {
  const segments = op.path.split('/').filter((s) => s.length > 0 && !PREFIX.test(s));
  if (segments.length === 0) return undefined;
  const last = segments[segments.length - 1]!;
  const record = isParam(last);
  const literal = record ? segments[segments.length - 2] : last;
  if (literal === undefined || isParam(literal)) return undefined;
  const at = segments.lastIndexOf(literal);
  // What names the records: the segment, the literal segments before it (`/replication/policies`),
  // or its parent's name with it (`/projects/{id}/members` → ProjectMember).
  const phrases = [literal];
  let start = at;
  while (start > 0 && !isParam(segments[start - 1]!)) start -= 1;
  const joined = (parts: string[]) => parts.map((part) => modelName(part)).join('');
  if (start < at) phrases.push(joined(segments.slice(start, at + 1)));
  if (start >= 2) phrases.push(joined([segments[start - 2]!, ...segments.slice(start, at + 1)]));
  const expected = op.model ? models.get(modelName(op.model).toLowerCase()) : undefined;
  let model = phrases.map((p) => modelOfSegment(p, models) ?? namedLike(p, expected)).find((m) => m !== undefined);
  let finder = false;
  if (!model && !record && FINDER.test(literal) && segments.length >= 2 && !isParam(segments[segments.length - 2]!)) {
    model = modelOfSegment(segments[segments.length - 2]!, models);
    finder = true;
  }
  // The entity the operation answers with must agree with its path, when the document says it.
  if (!model || (op.model && modelName(op.model).toLowerCase() !== model.toLowerCase())) return undefined;
  const r = resourceName(model);
  const before = segments.slice(0, at - (finder ? 1 : 0));
  const nested = before.some(isParam) ? `; the generated route is not nested under ${op.path.slice(0, op.path.lastIndexOf(`/${before[before.length - 1]}`) + before[before.length - 1]!.length + 1)}` : '';
  // A search sent as a query or as a form body is the generated list with a filter.
  if (finder) return op.method === 'GET' || op.method === 'POST' ? { model, routes: [`GET /${r}`], note: ` with a filter on its fields${nested}` } : undefined;
  if (!record) {
    if (op.method === 'GET') return { model, routes: [`GET /${r}`], ...(nested ? { note: nested } : {}) };
    if (op.method === 'POST') return { model, routes: [`POST /${r}`], ...(nested ? { note: nested } : {}) };
    // A PUT or PATCH on the collection creates or updates the records its body names.
    if (op.method === 'PUT' || op.method === 'PATCH') return { model, routes: [`POST /${r}`, `PATCH /${r}/{id}`], note: ` (a create, or an update of the record its body names)${nested}` };
    return undefined;
  }
  if (op.method === 'GET') return { model, routes: [`GET /${r}/{id}`], ...(nested ? { note: nested } : {}) };
  if (op.method === 'DELETE') return { model, routes: [`DELETE /${r}/{id}`], ...(nested ? { note: nested } : {}) };
  return { model, routes: [`PATCH /${r}/{id}`], ...(op.method === 'PATCH' ? (nested ? { note: nested } : {}) : { note: ` (the generated update changes the fields it is sent)${nested}` }) };
}

/**
 * A warning per operation: the generated routes it maps onto, or why none does. Operations
 * become no actions or triggers of their own.
 */
export function mapOperations(operations: Operation[], def: AppDefinition): SpecWarning[] {
  const models = new Map(def.models.map((m) => [m.name.toLowerCase(), m.name]));
  const warnings: SpecWarning[] = [];
  for (const op of operations) {
    const mapped = mapOperation(op, models);
    const named = `${op.method} ${op.path} (${op.name})`;
    if (mapped) {
      const routes = mapped.routes.map((route) => `\`${route}\``).join(' or ');
      warnings.push({ ...op.source, message: `${named} → the generated ${routes} of ${mapped.model}${mapped.note ?? ''}.` });
    } else {
      warnings.push({
        ...op.source,
        message: `${named} is no create, read, update or delete of a model: no route was made for it (write an action with an HTTP trigger if the app needs it).`,
      });
    }
  }
  return warnings;
}
