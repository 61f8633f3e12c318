/**
 * What each named schema of an API document is, before it becomes a model. Vendors' documents
 * describe their responses as much as their data: a page of results (`{count, next, previous,
 * results: [Pet]}`, `Accounts: {Accounts: [Account]}`), an error body (`ApiResponse`, `Error`),
 * an empty object, and several shapes of one entity (`AbilitySummary` and `AbilityDetail`,
 * `UserCreationReq` and `UserResp`). Envelopes, error shapes, empty objects and request shapes
 * of no entity are left out (each named in a warning); the variants of one entity become one
 * model, whose fields only a request shape has are write-only.
 */
import { isObject } from './schema-models.ts';
import type { NamedSchema, SchemaModels, SchemaPlan } from './schema-models.ts';
import type { DraftModel, DraftWarning } from './types.ts';
import { modelName } from '../names.ts';

/** Members of a page of results besides its list, compared lower-case without `_`/`-`. */
const PAGING = new Set(
  (
    'count next previous prev total totalcount totalitems totalresults totalpages totalelements totalsize page pages pagesize ' +
    'pagenumber pagecount itemcount perpage size limit offset start end cursor nextcursor previouscursor prevcursor nextpagetoken ' +
    'nextpage previouspage nextlink prevlink hasmore hasnext hasprevious links link meta pagination paging pageinfo sort first last ' +
    'firstpage lastpage number numberofelements empty warnings errors status message uri firstpageuri nextpageuri previouspageuri pageuri key'
  ).split(' '),
);
/** Names of the list in a page of results. */
const LIST_KEYS = new Set(['results', 'items', 'data', 'content', 'records', 'entries', 'values', 'list', 'elements', 'hits', 'rows', 'objects']);
/** A member pointing at one of these describes the page, not the records. */
const PAGING_SCHEMA = /(page|paging|pagination|sort|meta|links?)$/i;
const ERROR_NAME = /(Error|Errors|Problem|ProblemDetails?|Fault|Exception)(Response|Model|Object|Body|Message|Info)?$/;
/** Members of an error body; one of `ERROR_TEXT` must be there. */
const ERROR_KEYS = new Set('code type message status title detail details instance error errors description errorcode errormessage errornumber timestamp path trace traceid elements fields reason'.split(' '));
const ERROR_TEXT = ['message', 'detail', 'error', 'errormessage'];
/** A shape that only points at a record (`{name, url}`): a summary of whatever entity it is named after. */
const REFERENCE_KEYS = new Set(['id', 'uid', 'uuid', 'name', 'url', 'href', 'self', 'link']);
const WRAPPER_NAME = /(Response|Result|Wrapper|Envelope|Payload|Body|Data)$/;

/** Suffixes of an entity's variants: `strong` always merge; `weak` ones only when they share its fields. */
const REQUEST_SUFFIXES = ['Request', 'Req', 'Input', 'Create', 'Creation', 'Update', 'Patch', 'Params'];
const RESPONSE_SUFFIXES = ['Response', 'Resp', 'Entity', 'Created', 'Updated', 'Dto', 'DTO'];
const WEAK_SUFFIXES = ['Summary', 'Detail', 'Details', 'Base', 'Full', 'Header', 'Profile'];
const REQUEST_PREFIXES = ['New', 'Create', 'Update'];

const flat = (name: string) => name.toLowerCase().replace(/[_-]/g, '');

interface Stem {
  stem: string;
  request: boolean;
  weak: boolean;
}

/** `UserCreationReq` → `User` (a request); `AbilitySummary` → `Ability` (weak); `Pet` → `Pet`. */
/** Each suffix compiled once: `ProjectReq`, `project_req`, `project-Req`. */
const SUFFIXES = (
  [
    [REQUEST_SUFFIXES, true, false],
    [RESPONSE_SUFFIXES, false, false],
    [WEAK_SUFFIXES, false, true],
  ] as const
).flatMap(([list, request, weak]) =>
  list.map((suffix) => ({ pattern: new RegExp(`^(.{2,}?)(?:${suffix}|[_-](?:${suffix}|${suffix.toLowerCase()}))$`), request, weak })),
);
const PREFIXES = REQUEST_PREFIXES.map((prefix) => new RegExp(`^(?:${prefix}[_-]?([A-Z].+)|${prefix.toLowerCase()}[_-](.+))$`));
const VERSION = /^(.{2,}?)(?:[_-]?V|[_-]v)\d+$/;

export function stemOf(name: string): Stem {
  let stem = name;
  let request = false;
  let weak = false;
  for (let changed = true; changed; ) {
    changed = false;
    const version = VERSION.exec(stem);
    if (version) {
      stem = version[1]!;
      changed = true;
    }
    for (const suffix of SUFFIXES) {
      const match = suffix.pattern.exec(stem);
      // a suffix ends a word: `Req` in `ProjectReq`, never in `Freq`
      if (!match || !/[a-z0-9_-]$/.test(match[1]!)) continue;
      stem = match[1]!;
      request ||= suffix.request;
      weak ||= suffix.weak;
      changed = true;
    }
  }
  for (const prefix of PREFIXES) {
    const match = prefix.exec(stem);
    if (match) {
      stem = (match[1] ?? match[2])!;
      request = true;
    }
  }
  return { stem, request, weak };
}

type Props = Map<string, unknown>;

export function planSchemas(schemas: SchemaModels, named: NamedSchema[], resolve: (ref: string) => unknown): SchemaPlan {
  const plan: SchemaPlan = { modelName: new Map(), request: new Set(), leftOut: new Map(), envelopeOf: new Map() };
  const props = new Map<string, Props>();
  for (const { pointer } of named) {
    const schema = resolve(pointer);
    if (!schemas.isModelSchema(schema)) continue;
    props.set(pointer, schemas.propertiesOf(pointer).properties);
  }
  const nameOf = new Map(named.map((n) => [n.pointer, n.name]));
  const errors = new Set<string>();

  const refOf = (schema: unknown): string | undefined => {
    if (!isObject(schema)) return undefined;
    return typeof schema.$ref === 'string' ? schema.$ref : schemas.wrappedRef(schema);
  };
  const itemRefOf = (schema: unknown): string | undefined =>
    isObject(schema) && (schema.type === 'array' || Array.isArray(schema.type)) ? refOf(schema.items) : undefined;

  // Empty objects and error shapes first: an envelope's `Warnings: [ValidationError]` is paging then.
  for (const [pointer, properties] of props) {
    const name = nameOf.get(pointer)!;
    if (properties.size === 0) {
      plan.leftOut.set(pointer, 'is an object schema with no properties (an empty object)');
      continue;
    }
    const keys = [...properties.keys()].map(flat);
    const errorShaped = keys.every((k) => ERROR_KEYS.has(k)) && keys.some((k) => ERROR_TEXT.includes(k));
    if (ERROR_NAME.test(name) || (errorShaped && /(Response|Result|Status|Message|Error)s?$/.test(name))) {
      plan.leftOut.set(pointer, 'is the shape of an error answer');
      errors.add(pointer);
    }
  }

  const isPaging = (key: string, schema: unknown): boolean => {
    if (PAGING.has(flat(key))) return true;
    const ref = refOf(schema) ?? itemRefOf(schema);
    return ref !== undefined && (errors.has(ref) || PAGING_SCHEMA.test(nameOf.get(ref) ?? ''));
  };
  const isModelRef = (ref: string | undefined): ref is string => ref !== undefined && props.has(ref) && !plan.leftOut.has(ref);

  for (const [pointer, properties] of props) {
    if (plan.leftOut.has(pointer)) continue;
    const name = nameOf.get(pointer)!;
    const lists: Array<[string, string]> = [];
    const singles: Array<[string, string]> = [];
    let other = false;
    let paging = false;
    for (const [key, schema] of properties) {
      const item = itemRefOf(schema);
      const ref = refOf(schema);
      if (isModelRef(item) && !PAGING_SCHEMA.test(nameOf.get(item) ?? '')) lists.push([key, item]);
      else if (isModelRef(ref) && !isPaging(key, schema)) singles.push([key, ref]);
      else if (isPaging(key, schema)) paging = true;
      else other = true;
    }
    if (other) continue;
    // A lone list is a page when paging members or the names say so: `results`, `Accounts: {Accounts: [Account]}`.
    const page = (key: string, item: string): boolean => {
      const itemName = nameOf.get(item) ?? '';
      const plural = modelName(key);
      return paging || LIST_KEYS.has(flat(key)) || modelName(name) === modelName(itemName) || (modelName(name).startsWith(plural) && itemName.startsWith(plural));
    };
    if (lists.length === 0 && singles.length === 0 && PAGING_SCHEMA.test(name)) {
      plan.leftOut.set(pointer, 'describes a page of results (paging metadata)');
    } else if (lists.length === 1 && singles.length === 0 && lists[0]![1] !== pointer && page(lists[0]![0], lists[0]![1])) {
      plan.leftOut.set(pointer, `is a list envelope (a page of ${nameOf.get(lists[0]![1])} in '${lists[0]![0]}')`);
      plan.envelopeOf.set(pointer, lists[0]![1]);
    } else if (lists.length === 0 && singles.length === 1 && WRAPPER_NAME.test(name) && singles[0]![1] !== pointer) {
      plan.leftOut.set(pointer, `is an envelope of one ${nameOf.get(singles[0]![1])} (in '${singles[0]![0]}')`);
      plan.envelopeOf.set(pointer, singles[0]![1]);
    }
  }

  planVariants(plan, props, nameOf);
  return plan;
}

/** Groups the remaining schemas by stem and decides which merge, and which request shapes are of no entity. */
function planVariants(plan: SchemaPlan, props: Map<string, Props>, nameOf: Map<string, string>): void {
  const families = new Map<string, Array<{ pointer: string; name: string } & Stem>>();
  for (const pointer of props.keys()) {
    if (plan.leftOut.has(pointer)) continue;
    const name = nameOf.get(pointer)!;
    const stem = stemOf(name);
    // `user_response` and `User` are shapes of one entity: stems meet without case or separators.
    const key = flat(stem.stem);
    const family = families.get(key);
    if (family) family.push({ pointer, name, ...stem });
    else families.set(key, [{ pointer, name, ...stem }]);
  }
  for (const [key, members] of families) {
    const own = members.find((m) => flat(m.name) === key);
    if (members.length === 1 && !own) {
      const only = members[0]!;
      if (only.request) plan.leftOut.set(only.pointer, `is a request shape of no entity of the document (no ${only.stem} schema to merge it into)`);
      continue;
    }
    if (members.length === 1) continue;
    const size = (m: { pointer: string }) => props.get(m.pointer)!.size;
    const core = own ?? [...members].sort((a, b) => Number(a.request) - Number(b.request) || size(b) - size(a))[0]!;
    const coreKeys = new Set([...props.get(core.pointer)!.keys()].map(flat));
    // Without the entity's own schema, each shape must share the core's properties to be one of it.
    const merged = members.filter((m) => {
      if (m === core || (own && !m.weak)) return true;
      const keys = [...props.get(m.pointer)!.keys()].map(flat);
      return keys.every((k) => REFERENCE_KEYS.has(k)) || keys.filter((k) => coreKeys.has(k)).length * 2 >= keys.length;
    });
    if (merged.length < 2) continue;
    const stem = own?.name ?? core.stem;
    for (const m of merged) {
      plan.modelName.set(m.pointer, stem);
      if (m.request) plan.request.add(m.pointer);
    }
  }
}

/** One warning per model made of several schemas, naming them and its write-only fields. */
export function variantWarnings(plan: SchemaPlan, named: NamedSchema[], models: DraftModel[]): DraftWarning[] {
  const members = new Map<string, string[]>();
  for (const schema of named) {
    const model = plan.modelName.get(schema.pointer);
    if (!model) continue;
    const list = members.get(model);
    if (list) list.push(schema.name);
    else members.set(model, [schema.name]);
  }
  const warnings: DraftWarning[] = [];
  for (const model of models) {
    const names = members.get(model.name);
    if (!names || names.length < 2) continue;
    const writeOnly = model.fields.filter((f) => f.writeOnly).map((f) => f.name);
    const note = writeOnly.length > 0 ? `; only a request shape has ${writeOnly.join(', ')}: write-only` : '';
    warnings.push({ locator: model.locator, message: `${names.join(', ')} are shapes of one entity: merged into the model ${model.name}${note}.` });
  }
  return warnings;
}
