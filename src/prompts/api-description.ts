/**
 * What a generated application's HTTP API looks like, derived from a definition
 * (DESIGN §6): resources with their fields, the end-user auth flow, and the HTTP
 * triggers. Pure; shared by the integration prompts and the frontend bundle.
 */
import { defaultExpression, literalDefault } from '../definition/default-value.ts';
import { resourceName } from '../definition/naming.ts';
import { findModel, isRelationship, isToMany, partnerCandidates } from '../definition/relationships.ts';
import { isPrimitiveType, type AppDefinition, type EnumValue, type Field, type Model, type PrimitiveType } from '../definition/schema.ts';

export interface RelationInfo {
  modelId: string;
  modelName: string;
  resource: string;
  /** The field of the target model pointing back, when there is one. */
  partner?: string;
}

export interface ApiField {
  id: string;
  name: string;
  /** The definition's `to`: a primitive type, or a model id for a relationship. */
  to: string;
  primitive: PrimitiveType | null;
  /** The JSON shape of one value, in words (`string (date-time, ISO 8601)`). */
  jsonType: string;
  /** `max` null or > 1: an array of values (or of ids for a relationship). */
  many: boolean;
  min: number;
  max: number | null;
  /** `min` ≥ 1. */
  required: boolean;
  enum?: EnumValue[];
  /** A literal default (unwrapped from `{"literal": …}`). */
  hasDefault: boolean;
  defaultValue?: unknown;
  /** A default computed on create (`auth.id`: the caller); the field may be left out. */
  defaultExpression?: string;
  /** A computed field: read-only, never sent on writes. */
  computed?: string;
  relation?: RelationInfo;
  /** Field-level access rules, as `allow|deny: criteria`. */
  accessRules: string[];
}

export interface ApiResource {
  modelId: string;
  name: string;
  /** The URL segment: `ToDo` → `toDos`. */
  resource: string;
  isUserModel: boolean;
  fields: ApiField[];
  accessRules: string[];
  defaultAccess: 'allow' | 'deny';
}

export interface ApiTrigger {
  id: string;
  method: string;
  path: string;
  /** `isPublic` as defined; false (the default) requires a signed-in end user. */
  isPublic: boolean;
  actionId: string;
  validation: string[];
  matchSelectors: string[];
  initialState: Record<string, string>;
  /** `:name` segments of the path. */
  pathParams: string[];
  /** Members of the request read by the trigger's expressions. */
  reads: { body: string[]; params: string[]; query: string[]; headers: string[] };
}

export interface ApiAuth {
  userResource: string;
  userModelName: string;
  /** User-model fields a sign-up may send (besides `password`). */
  signupFields: ApiField[];
  /** Whether the user model has the text field `email` that login needs. */
  hasEmail: boolean;
}

export interface ApiDescription {
  appName: string;
  appDescription: string;
  resources: ApiResource[];
  triggers: ApiTrigger[];
  auth: ApiAuth | null;
}

const JSON_TYPES: Record<PrimitiveType, string> = {
  p_TEXT: 'string',
  p_IMAGE: 'string (image: on write an https URL or the key POST /files answered; read as a URL)',
  p_BOOLEAN: 'boolean',
  p_NUMBER: 'number',
  p_DATE: 'string (date, YYYY-MM-DD)',
  p_DATE_TIME: 'string (date-time, ISO 8601, e.g. 2030-01-31T17:00:00.000Z)',
  p_TIME: 'string (time, HH:MM or HH:MM:SS)',
  p_ADDRESS: 'object (address)',
  p_PHONE_NUMBER: 'string (phone number in E.164 form, e.g. +14155550123)',
  p_CURRENCY_AMOUNT: 'object {amount: number, currency: 3-letter ISO 4217 code}',
  p_LINK: 'string (http(s) URL)',
  p_VIDEO: 'string (video: on write an https URL or the key POST /files answered; read as a URL)',
  p_STAR_RATING: 'integer 0-5 (star rating)',
  p_FILE: 'string (file: on write an https URL or the key POST /files answered; read as a URL)',
};

const rulesOf = (rules: { access: string; criteria: string }[]): string[] => rules.map((r) => `${r.access}: ${r.criteria}`);

function describeField(definition: AppDefinition, model: Model, field: Field): ApiField {
  const primitive = isPrimitiveType(field.to) ? field.to : null;
  const many = isToMany(field);
  let relation: RelationInfo | undefined;
  let jsonType = primitive ? JSON_TYPES[primitive] : 'unknown';
  if (isRelationship(field)) {
    const target = findModel(definition, field.to);
    const candidates = partnerCandidates(definition, model, field);
    const partner = candidates.length === 1 ? candidates[0] : undefined;
    const targetName = target?.name ?? field.to;
    relation = { modelId: field.to, modelName: targetName, resource: resourceName(targetName), ...(partner ? { partner: partner.name } : {}) };
    jsonType = `${targetName} (relationship: id on write, expanded record on read)`;
  }
  return {
    id: field.id,
    name: field.name,
    to: field.to,
    primitive,
    jsonType,
    many,
    min: field.min,
    max: field.max,
    required: field.min >= 1,
    ...(field.enum ? { enum: field.enum } : {}),
    hasDefault: literalDefault(field.defaultValue) !== undefined,
    ...(literalDefault(field.defaultValue) !== undefined ? { defaultValue: literalDefault(field.defaultValue) } : {}),
    ...(defaultExpression(field.defaultValue) !== undefined ? { defaultExpression: defaultExpression(field.defaultValue) } : {}),
    ...(field.computed !== undefined ? { computed: field.computed } : {}),
    ...(relation ? { relation } : {}),
    accessRules: rulesOf(field.accessControl.rules),
  };
}

const MEMBER = /request\s*\.\s*(body|params|query|headers)\s*(?:\.\s*([A-Za-z_][A-Za-z0-9_]*)|\[\s*['"]([^'"]+)['"]\s*\])/g;

/** The `request.body.x` / `request.params['y']` members that expressions read, in order of appearance. */
export function requestMembers(expressions: string[]): ApiTrigger['reads'] {
  const reads: ApiTrigger['reads'] = { body: [], params: [], query: [], headers: [] };
  for (const expression of expressions) {
    for (const match of expression.matchAll(MEMBER)) {
      const list = reads[match[1] as keyof ApiTrigger['reads']];
      const name = match[2] ?? match[3];
      if (name && !list.includes(name)) list.push(name);
    }
  }
  return reads;
}

export function describeApi(definition: AppDefinition, appName?: string): ApiDescription {
  const resources: ApiResource[] = definition.models.map((model) => ({
    modelId: model.id,
    name: model.name,
    resource: resourceName(model.name),
    isUserModel: model.id === definition.userModelId,
    fields: model.fields.map((field) => describeField(definition, model, field)),
    accessRules: rulesOf(model.accessControl.rules),
    defaultAccess: model.accessControl.defaultAccess ?? 'deny',
  }));

  const triggers: ApiTrigger[] = [];
  for (const t of definition.triggers) {
    if (t.trigger.type !== 'http') continue;
    const initialState = { ...t.initialState };
    const matchSelectors = t.trigger.matchSelectors ?? [];
    triggers.push({
      id: t.trigger.id,
      method: t.trigger.method,
      path: t.trigger.path,
      isPublic: t.isPublic ?? false,
      actionId: t.actionId,
      validation: [...t.validation],
      matchSelectors: [...matchSelectors],
      initialState,
      pathParams: [...t.trigger.path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]),
      reads: requestMembers([...Object.values(initialState), ...t.validation, ...matchSelectors]),
    });
  }

  const user = resources.find((r) => r.isUserModel);
  const auth: ApiAuth | null = user
    ? {
        userResource: user.resource,
        userModelName: user.name,
        signupFields: user.fields.filter((f) => f.primitive !== null && f.computed === undefined),
        hasEmail: user.fields.some((f) => f.name === 'email' && f.primitive === 'p_TEXT'),
      }
    : null;

  return {
    appName: appName ?? definition.appOverview?.name ?? definition.appId,
    appDescription: definition.appDescription,
    resources,
    triggers,
    auth,
  };
}

/** An example value for a field, for request samples. */
export function exampleValue(field: ApiField, ids: (resource: string) => string = (r) => `<${r} id>`): unknown {
  if (field.relation) return field.many ? [ids(field.relation.resource)] : ids(field.relation.resource);
  const one = exampleScalar(field);
  return field.many ? [one] : one;
}

function exampleScalar(field: ApiField): unknown {
  if (field.enum && field.enum.length > 0) return field.hasDefault ? field.defaultValue : field.enum[0];
  switch (field.primitive) {
    case 'p_BOOLEAN':
      return true;
    case 'p_NUMBER':
      return 42;
    case 'p_STAR_RATING':
      return 4;
    case 'p_DATE':
      return '2030-01-31';
    case 'p_DATE_TIME':
      return '2030-01-31T17:00:00.000Z';
    case 'p_TIME':
      return '09:30';
    case 'p_PHONE_NUMBER':
      return '+14155550123';
    case 'p_CURRENCY_AMOUNT':
      return { amount: 19.99, currency: 'EUR' };
    case 'p_ADDRESS':
      return { street: '1 Main Street', city: 'Springfield', postalCode: '12345', country: 'US' };
    case 'p_LINK':
    case 'p_IMAGE':
    case 'p_VIDEO':
    case 'p_FILE':
      return 'https://example.com/file';
    default:
      if (field.name.toLowerCase().includes('email')) return 'ada@example.com';
      if (field.name.toLowerCase() === 'name') return 'Ada Lovelace';
      return `Example ${field.name}`;
  }
}

/** Whether a field is sent on writes: not computed. */
export const isWritable = (field: ApiField): boolean => field.computed === undefined;
